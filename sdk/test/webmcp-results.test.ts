import assert from "node:assert/strict";
import { test } from "node:test";
import { CallToolError, fromCallToolResult, isCallToolResult } from "../src/webmcp/call-result.js";
import { registrations, type WebMCPRegistration } from "../src/webmcp/registrations.js";
import { webmcpHandler } from "../src/webmcp/tools.js";
import type { ToolCallContext } from "../src/types.js";

test("fromCallToolResult: an MCP CallToolResult read as what it means", () => {
  assert.deepEqual(fromCallToolResult({ content: [{ type: "text", text: "{}" }], structuredContent: { a: 1 } }), { a: 1 });
  assert.equal(fromCallToolResult({ content: [{ type: "text", text: "hello" }] }), "hello");
  assert.equal(fromCallToolResult({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }), "a\nb");
  const image = { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] };
  assert.deepEqual(fromCallToolResult(image), image.content);
  assert.throws(() => fromCallToolResult({ content: [{ type: "text", text: "Error: nope" }], isError: true }), (e: Error) => e instanceof CallToolError && e.message === "Error: nope");
  assert.throws(() => fromCallToolResult({ content: [], isError: true }), /isError: true/);
  // isError false is a result like any other.
  assert.equal(fromCallToolResult({ content: [{ type: "text", text: "fine" }], isError: false }), "fine");
});

test("isCallToolResult: other values stay results as they are", () => {
  for (const v of [null, 1, "x", [], { content: "text" }, { content: [1] }, { content: [{ text: "no type" }] }, { content: [], isError: "yes" }]) {
    assert.equal(isCallToolResult(v), false, JSON.stringify(v));
    assert.deepEqual(fromCallToolResult(v as never), v);
  }
  assert.equal(isCallToolResult({ content: [] }), true);
});

test("webmcpHandler: execute's CallToolResult becomes the result, or the handler's error", async () => {
  const ctx = { signal: new AbortController().signal } as ToolCallContext;
  const reg = (execute: WebMCPRegistration["execute"]): WebMCPRegistration => ({ name: "t", description: "d", execute, readOnlyHint: false, untrustedContentHint: false, exposedTo: [] });
  assert.deepEqual(await webmcpHandler(reg(async () => ({ content: [{ type: "text", text: "x" }], structuredContent: { ok: 1 } })))({}, ctx), { ok: 1 });
  await assert.rejects(webmcpHandler(reg(async () => ({ content: [{ type: "text", text: "Error: declined" }], isError: true })))({}, ctx), /Error: declined/);
  assert.equal(registrations.list().length, 0);
});
