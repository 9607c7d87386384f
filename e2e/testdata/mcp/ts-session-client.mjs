// The TypeScript MCP SDK's Streamable HTTP client (what Node agents such as
// Gemini CLI, Qwen Code and claude-agent-acp connect with) against one
// session's MCP endpoint, with the header an ACP client gives at
// session/new. Prints one JSON line; e2e/mcp_session_test.go checks it.
// usage: MCP_SDK_DIR=<node_modules/@modelcontextprotocol/sdk> node ts-session-client.mjs <url> <secret> <tool> <json args>
import { pathToFileURL } from "node:url";

const dir = process.env.MCP_SDK_DIR;
const load = (p) => import(pathToFileURL(`${dir}/dist/esm/${p}`).href);
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");

const [url, secret, tool, args] = process.argv.slice(2);
const connect = async (bearer) => {
  const client = new Client({ name: "pedelec-e2e-ts-session", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
  return client;
};

const client = await connect(secret);
const tools = (await client.listTools()).tools.map((t) => t.name).sort();
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
await client.close();
let refused = null;
try {
  await connect(secret + "x");
} catch (err) {
  refused = String(err?.message ?? err);
}
process.stdout.write(JSON.stringify({ tools, result, refused }) + "\n");
