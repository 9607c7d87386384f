// The shop's first page: tools that exist while their component is
// mounted, one WebMCP tool declared with a third-party hook and a Zod
// schema, and a tool that follows a link to the next page.
import { useState } from "react";
import { z } from "zod";
import { useWebMCP } from "usewebmcp";
import { useWebMCPContext } from "@mcp-b/react-webmcp";
import { useTool } from "@kaoruisaac/pedelec/react";
import { mount } from "./shell";

function Counter() {
  const [count, setCount] = useState(0);
  const { registered } = useTool(
    {
      name: "counter_add",
      description: "Adds delta to the counter on the page and returns the new value.",
      argsSchema: { type: "object", properties: { delta: { type: "integer", minimum: -100, maximum: 100 } }, required: ["delta"] },
    },
    // The latest render's handler answers, so `count` is current.
    ({ delta }: { delta: number }) => {
      setCount(count + delta);
      return { value: count + delta };
    },
  );
  return (
    <p>
      Counter: <output id="count">{count}</output> {registered ? <small id="counter-registered">(a tool now)</small> : null}
    </p>
  );
}

function Greeter() {
  const [greeting, setGreeting] = useState("Hello");
  // A new handler each render, reading this render's greeting: the tool
  // is not registered again, and calls get the latest handler.
  useTool(
    {
      name: "greet",
      description: "Greets someone the way the page says to.",
      argsSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    },
    ({ name }: { name: string }) => ({ text: `${greeting}, ${name}!` }),
  );
  return (
    <p>
      Greeting: <code id="greeting">{greeting}</code>{" "}
      <button id="change-greeting" onClick={() => setGreeting((g) => (g === "Hello" ? "Ahoy" : "Hello"))}>Change</button>
    </p>
  );
}

const forecastInput = z.object({
  city: z.string().min(1).describe("The city"),
  days: z.number().int().min(1).max(7).describe("How many days ahead"),
});

function Forecast() {
  // usewebmcp, unchanged: it registers with document.modelContext, and
  // the session (webmcp: true) offers the tool to Pedelec's agents too.
  useWebMCP({
    name: "forecast",
    description: "The weather forecast for a city.",
    inputSchema: forecastInput,
    execute: async ({ city, days }: z.infer<typeof forecastInput>) => ({ city, days, sky: "clear" }),
  });
  return <p>Forecasts are a WebMCP tool.</p>;
}

function ShopContext({ visits }: { visits: number }) {
  // @mcp-b/react-webmcp's read-only context tool (its useWebMCP is
  // usewebmcp's): registered with document.modelContext like any other.
  useWebMCPContext("shop_context", "What the shop page shows now.", async () => ({ page: "shop", visits }));
  return null;
}

function Waiter() {
  // Answers only when the page says so: a call still running when the
  // page reloads, to show the next page answering it.
  useTool(
    { name: "wait_for_click", description: "Waits until the user clicks Done on the page.", argsSchema: { type: "object", properties: {} }, timeoutMs: 120_000 },
    () => new Promise((resolve) => document.getElementById("done")?.addEventListener("click", () => resolve({ clicked: true }), { once: true })),
  );
  return <button id="done">Done</button>;
}

function GoToCart() {
  useTool(
    { name: "open_cart", description: "Opens the cart page (follows the page's link).", argsSchema: { type: "object", properties: {} } },
    () => {
      document.getElementById("to-cart")?.click(); // the page navigates: the next page answers
      return new Promise(() => {});
    },
  );
  return <a id="to-cart" href="/cart.html">Cart</a>;
}

function Shop() {
  const [showCounter, setShowCounter] = useState(true);
  return (
    <main>
      <h1>Shop</h1>
      <button id="toggle-counter" onClick={() => setShowCounter((s) => !s)}>{showCounter ? "Hide" : "Show"} counter</button>
      {showCounter ? <Counter /> : null}
      <Greeter />
      <Forecast />
      <ShopContext visits={1} />
      <Waiter />
      <GoToCart />
    </main>
  );
}

mount(<Shop />);
