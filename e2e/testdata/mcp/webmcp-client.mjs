// The TypeScript MCP SDK's client against `pedelec mcp`, for a page that
// declares its tools only with WebMCP (e2e/browser_webmcp_test.go).
// Prints one JSON line per step; the Go test acts on the page in between.
// usage: MCP_SDK_DIR=<node_modules/@modelcontextprotocol/sdk> node webmcp-client.mjs <pedelec> mcp [flags...]
import { pathToFileURL } from "node:url";

const dir = process.env.MCP_SDK_DIR;
const load = (p) => import(pathToFileURL(`${dir}/dist/esm/${p}`).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { ToolListChangedNotificationSchema } = await load("types.js");

const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const [command, ...args] = process.argv.slice(2);

const client = new Client({ name: "pedelec-e2e-webmcp", version: "1.0.0" });
let changed = 0;
let wake = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changed++;
  wake();
});
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();

// Waits until the tool list, after list_changed notifications, satisfies ok.
async function listUntil(ok, what) {
  const end = Date.now() + 30_000;
  for (;;) {
    const tools = await names();
    if (ok(tools)) return tools;
    if (Date.now() > end) throw new Error(`no ${what} within 30s; tools ${tools}`);
    await new Promise((resolve) => {
      wake = resolve;
      setTimeout(resolve, 500);
    });
  }
}

out({ step: "connected", tools: await names() });
// All seven: the bridge adds a page's tools one by one, each with its own
// list_changed, so a list taken at the first one may hold only some.
const tools = await listUntil((t) => t.length >= 7, "the page's seven WebMCP tools");
const listed = (await client.listTools()).tools;
const reviews = listed.find((t) => t.name === "read_reviews");
const added = await client.callTool({ name: "add_todo", arguments: { title: "milk" } });
const untrusted = await client.callTool({ name: "read_reviews", arguments: {} });
const rejected = await client.callTool({ name: "checkout", arguments: {} });
const ac = new AbortController();
setTimeout(() => ac.abort("the user pressed Esc"), 1000);
let cancelled = null;
try {
  await client.callTool({ name: "wait_forever", arguments: {} }, undefined, { signal: ac.signal });
} catch (err) {
  cancelled = String(err?.message ?? err);
}
out({ step: "called", tools, reviews, added, untrusted, rejected, cancelled, changed });

// The Go test now registers clear_todos in the page, then aborts its signal.
const withClear = await listUntil((t) => t.includes("clear_todos"), "clear_todos");
const cleared = await client.callTool({ name: "clear_todos", arguments: {} });
out({ step: "registered", tools: withClear, cleared, changed });
const withoutClear = await listUntil((t) => !t.includes("clear_todos"), "clear_todos gone");
out({ step: "unregistered", tools: withoutClear, changed });
await client.close();
