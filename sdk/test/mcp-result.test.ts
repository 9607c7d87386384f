// A handler's MCP content (mcpResult(), a WebMCP tool's CallToolResult)
// goes to Core as submit_tool_result's mcpContent, beside what it means.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool } from "../src/define-tool.js";
import { mcpResult } from "../src/mcp-result.js";
import { FakeCore, until } from "./fake-core.js";

const none = { type: "object", properties: {}, required: [] } as const;
const image = { type: "image", data: "AAAA", mimeType: "image/png" } as const;
const tools = [
  defineTool({ name: "shot", description: "A picture.", argsSchema: none, handler: () => mcpResult({ content: [image], structuredContent: { w: 1 } }) }),
  defineTool({ name: "fail", description: "Fails.", argsSchema: none, handler: () => mcpResult({ content: [{ type: "text", text: "Error: no" }], isError: true }) }),
  defineTool({ name: "plain", description: "A result.", argsSchema: none, handler: () => ({ content: [image] }) }),
] as const;

const call = (id: string, tool: string) => ({ toolRequestId: id, tool, args: {}, timeoutMs: 10_000, deadline: Date.now() + 10_000, turnStartedAt: 1000 });

test("mcpResult: the blocks go as mcpContent, the result is what they mean", async () => {
  const core = new FakeCore();
  const pedelec = core.client();
  await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools } });
  core.socket.deliver(core.eventFrame("tool_call", call("r1", "shot"), { turnId: "t_1" }));
  core.socket.deliver(core.eventFrame("tool_call", call("r2", "fail"), { turnId: "t_1" }));
  core.socket.deliver(core.eventFrame("tool_call", call("r3", "plain"), { turnId: "t_1" }));
  await until(() => core.sent("submit_tool_result").length === 3, "three submits");
  const by = (id: string) => core.sent("submit_tool_result").find((f) => (f.params as { toolRequestId: string }).toolRequestId === id)!.params;
  assert.deepEqual(by("r1"), { sessionId: "s_1", toolRequestId: "r1", mcpContent: [image], result: { w: 1 } });
  assert.deepEqual(by("r2"), {
    sessionId: "s_1",
    toolRequestId: "r2",
    mcpContent: [{ type: "text", text: "Error: no" }],
    result: { error: { code: "TOOL_HANDLER_ERROR", message: "Error: no" } },
  });
  // A Pedelec handler's plain object is a result, whatever its keys.
  assert.deepEqual(by("r3"), { sessionId: "s_1", toolRequestId: "r3", result: { content: [image] } });
});
