// An app using the React binding, compiled against the published
// declarations (dist/react/*.d.ts importing dist/pedelec.d.ts), as an app
// that installed the package sees them. Plain createElement: no JSX setup.
import { createElement, useState } from "react";
import { Pedelec, type PedelecSession } from "@kaoruisaac/pedelec";
import { PedelecProvider, useChat, useNavigatedCall, useSession, useTool, type ChatMessage } from "@kaoruisaac/pedelec/react";

function Counter() {
  const [count, setCount] = useState(0);
  const { registered, error } = useTool<{ delta: number }>(
    { name: "counter_add", description: "Adds delta to the counter.", argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] } },
    ({ delta }, ctx) => {
      ctx.progress?.({ progress: 1 });
      setCount(count + delta);
      return { value: count + delta };
    },
  );
  useNavigatedCall((call) => (call.tool === "open_cart" ? { from: call.from, to: call.to } : undefined));
  const label: string = registered ? "tool" : (error?.code ?? "");
  return createElement("p", null, `${count} ${label}`);
}

function Chat() {
  const { session, status } = useSession();
  const s: PedelecSession | null = session;
  const { messages, streaming, send, sending } = useChat();
  const first: ChatMessage | undefined = messages[0];
  // @ts-expect-error send takes the text
  void send(1);
  return createElement("div", null, `${s?.sessionId ?? ""} ${status} ${first?.role ?? ""} ${streaming} ${sending}`, createElement("button", { onClick: () => void send("hi") }));
}

export const app = createElement(
  PedelecProvider,
  { client: new Pedelec(), session: { provider: "script", followPage: true, webmcp: true } },
  createElement(Counter),
  createElement(Chat),
);

// @ts-expect-error followPage is a boolean
export const wrong = createElement(PedelecProvider, { session: { provider: "script", followPage: "yes" } });
