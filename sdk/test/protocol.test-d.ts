// Type tests of the page protocol (tsc --noEmit compiles this; nothing
// runs): the connection's request is typed by method from the generated
// map (src/client/protocol.gen.ts), and an event's data is narrowed by its
// name, with no cast.
import type { Connection } from "../src/client/connection.js";
import type { EventFrame, Method, SessionInfo, ToolCallData, TurnStarted } from "../src/client/protocol.gen.js";
import type { JsonValue } from "../src/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(_: T) => {};

declare const connection: Connection;
declare const ev: EventFrame;

export async function requests() {
  const started = await connection.request("send_text", { sessionId: "s_1", text: "hi" });
  expectType<Equal<typeof started, TurnStarted>>(true);
  const info = await connection.request("resume_session", { sessionId: "s_1", lastSeq: 3 });
  expectType<Equal<typeof info, SessionInfo>>(true);
  const tools: string[] = (await connection.request("update_tools", { sessionId: "s_1", tools: [] })).added;
  await connection.request("submit_tool_result", { sessionId: "s_1", toolRequestId: "tr_1", refusal: { code: "NO", message: "no", retryable: false } });
  // @ts-expect-error send_text needs its text
  await connection.request("send_text", { sessionId: "s_1" });
  // @ts-expect-error list_providers takes no params
  await connection.request("list_providers", { all: true });
  // @ts-expect-error not a method of the protocol
  await connection.request("no_such_method", {});
  // The untyped escape hatch Pedelec.request uses takes any name.
  await connection.send<unknown>("no_such_method", {});
  const m: Method = "asset_read_ticket";
  return [tools, m];
}

export function events() {
  switch (ev.event) {
    case "tool_call": {
      expectType<Equal<typeof ev.data, ToolCallData>>(true);
      const args: JsonValue = ev.data.args;
      return args;
    }
    case "ended":
      return ev.data.reason;
    case "chat_delta":
      // @ts-expect-error a chat_delta has no args
      return ev.data.args;
  }
  return null;
}
