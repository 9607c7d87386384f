// The last page: what was ordered, as a tool.
import { useTool } from "@kaoruisaac/pedelec/react";
import { mount } from "./shell";

const item = new URLSearchParams(location.search).get("item") ?? "";

function Done() {
  useTool(
    { name: "read_order", description: "What the order page shows.", argsSchema: { type: "object", properties: {} } },
    () => ({ ordered: item }),
  );
  return (
    <main>
      <h1>Order placed</h1>
      <p id="ordered">{item}</p>
    </main>
  );
}

mount(<Done />);
