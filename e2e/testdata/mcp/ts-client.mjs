// The TypeScript MCP SDK's client against `pedelec mcp`: the scenario the
// Go test (e2e/browser_mcp_test.go) checks, printed as JSON lines.
// usage: MCP_SDK_DIR=<node_modules/@modelcontextprotocol/sdk> node ts-client.mjs <pedelec> mcp [flags...]
import { pathToFileURL } from "node:url";

const dir = process.env.MCP_SDK_DIR;
const load = (p) => import(pathToFileURL(`${dir}/dist/esm/${p}`).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { ToolListChangedNotificationSchema } = await load("types.js");

const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const [command, ...args] = process.argv.slice(2);

const client = new Client({ name: "pedelec-e2e-ts", version: "1.0.0" });
let changed = 0;
let wake = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changed++;
  wake();
});
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
out({ step: "connected", tools: await names() });

// The Go test now opens the page's mcp session: wait for list_changed.
await new Promise((resolve, reject) => {
  wake = resolve;
  if (changed > 0) resolve();
  setTimeout(() => reject(new Error("no notifications/tools/list_changed within 30s")), 30_000);
});
const listed = (await client.listTools()).tools;
const addTodo = listed.find((t) => t.name === "add_todo");

const ok = await client.callTool({ name: "add_todo", arguments: { title: "milk" } });
const invalid = await client.callTool({ name: "add_todo", arguments: { title: 5, done: "no" } });
const timeout = await client.callTool({ name: "slow_tool", arguments: {} });
const ac = new AbortController();
setTimeout(() => ac.abort("the user pressed Esc"), 1000);
let cancelled = null;
try {
  await client.callTool({ name: "wait_forever", arguments: {} }, undefined, { signal: ac.signal });
} catch (err) {
  cancelled = String(err?.message ?? err);
}
out({ step: "done", listChanged: changed, tools: listed.map((t) => t.name).sort(), addTodo, ok, invalid, timeout, cancelled });
await client.close();
