import assert from "node:assert/strict";
import { test } from "node:test";
import { HandlerRegistry } from "../src/handlers.js";
import { isCallToolResult, isMcpResult, mcpResult, readCallToolResult } from "../src/mcp-result.js";
import { registrations, type WebMCPRegistration } from "../src/webmcp/registrations.js";
import { webmcpHandler } from "../src/webmcp/tools.js";
import type { JsonValue, ToolCallContext } from "../src/types.js";

test("readCallToolResult: an MCP CallToolResult read as what it means", () => {
  assert.deepEqual(readCallToolResult({ content: [{ type: "text", text: "{}" }], structuredContent: { a: 1 } }), { result: { a: 1 } });
  assert.deepEqual(readCallToolResult({ content: [{ type: "text", text: "hello" }] }), { result: "hello" });
  assert.deepEqual(readCallToolResult({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }), { result: "a\nb" });
  const image = { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] };
  assert.deepEqual(readCallToolResult(image), { result: image.content });
  assert.deepEqual(readCallToolResult({ content: [{ type: "text", text: "Error: nope" }], isError: true }), { error: "Error: nope" });
  assert.match((readCallToolResult({ content: [], isError: true }) as { error: string }).error, /isError: true/);
  // isError false is a result like any other.
  assert.deepEqual(readCallToolResult({ content: [{ type: "text", text: "fine" }], isError: false }), { result: "fine" });
});

test("isCallToolResult: other values stay results as they are", () => {
  for (const v of [null, 1, "x", [], { content: "text" }, { content: [1] }, { content: [{ text: "no type" }] }, { content: [], isError: "yes" }]) {
    assert.equal(isCallToolResult(v), false, JSON.stringify(v));
    assert.deepEqual(readCallToolResult(v as JsonValue), { result: v });
  }
  assert.equal(isCallToolResult({ content: [] }), true);
});

test("mcpResult: marks MCP content, refuses what is not a CallToolResult", () => {
  const r = mcpResult({ content: [{ type: "text", text: "x" }] });
  assert.equal(isMcpResult(r), true);
  assert.equal(JSON.stringify(r), '{"content":[{"type":"text","text":"x"}]}');
  assert.equal(isMcpResult({ content: [] }), false);
  assert.throws(() => mcpResult({ content: "x" } as never), /mcpResult\(\) takes/);
});

const ctx = { signal: new AbortController().signal } as ToolCallContext;
const reg = (execute: WebMCPRegistration["execute"]): WebMCPRegistration => ({ name: "t", description: "d", execute, readOnlyHint: false, untrustedContentHint: false, exposedTo: [] });

test("webmcpHandler: execute's CallToolResult is MCP content; other values are results", async () => {
  const shaped = await webmcpHandler(reg(async () => ({ content: [{ type: "text", text: "x" }], structuredContent: { ok: 1 } })))({}, ctx);
  assert.equal(isMcpResult(shaped), true);
  assert.deepEqual(await webmcpHandler(reg(async () => ({ rows: 1 })))({}, ctx), { rows: 1 });
  assert.equal(registrations.list().length, 0);
});

test("HandlerRegistry: MCP content is submitted beside what it means", async () => {
  const image = { type: "image", data: "AAAA", mimeType: "image/png" } as const;
  const tools = [
    { name: "shot", description: "d", argsSchema: { type: "object", properties: {}, required: [] }, handler: () => mcpResult({ content: [image], structuredContent: { w: 1 } }) },
    { name: "text", description: "d", argsSchema: { type: "object", properties: {}, required: [] }, handler: () => mcpResult({ content: [{ type: "text", text: "hi" }] }) },
    { name: "fail", description: "d", argsSchema: { type: "object", properties: {}, required: [] }, handler: () => mcpResult({ content: [{ type: "text", text: "Error: no" }], isError: true }) },
    { name: "web", description: "d", argsSchema: { type: "object", properties: {}, required: [] },
      handler: webmcpHandler(reg(async () => ({ content: [{ type: "text", text: "Error: thrown" }], isError: true }))) },
  ] as const;
  const registry = new HandlerRegistry(tools as never);
  assert.deepEqual(await registry.run("shot", {}, ctx), { result: { w: 1 }, source: "inline", content: [image] });
  assert.deepEqual(await registry.run("text", {}, ctx), { result: "hi", source: "inline", content: [{ type: "text", text: "hi" }] });
  const failed = await registry.run("fail", {}, ctx);
  assert.deepEqual(failed.result, { error: { code: "TOOL_HANDLER_ERROR", message: "Error: no" } });
  assert.deepEqual(failed.content, [{ type: "text", text: "Error: no" }]);
  assert.equal(failed.failure?.code, "TOOL_HANDLER_ERROR");
  const web = await registry.run("web", {}, ctx);
  assert.deepEqual(web.content, [{ type: "text", text: "Error: thrown" }]);
  assert.equal(web.failure?.message, "Error: thrown");
});
