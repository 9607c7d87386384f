// The cart: it answers the call that brought the agent here, and offers
// a tool that submits its form to the next page.
import { useTool, useNavigatedCall } from "@kaoruisaac/pedelec/react";
import { mount } from "./shell";

function Cart() {
  useNavigatedCall((call) => (call.tool === "open_cart" ? { page: "cart", items: 0 } : undefined));
  useTool(
    {
      name: "place_order",
      description: "Places the order for one item (submits the cart's form).",
      argsSchema: { type: "object", properties: { item: { type: "string", minLength: 1 } }, required: ["item"] },
    },
    ({ item }: { item: string }) => {
      const form = document.getElementById("order") as HTMLFormElement;
      (form.elements.namedItem("item") as HTMLInputElement).value = item;
      form.requestSubmit(); // navigates to done.html; that page answers nothing
      return new Promise(() => {});
    },
  );
  return (
    <main>
      <h1>Cart</h1>
      <form id="order" action="/done.html" method="get">
        <input name="item" defaultValue="" />
        <button type="submit">Order</button>
      </form>
    </main>
  );
}

mount(<Cart />);
