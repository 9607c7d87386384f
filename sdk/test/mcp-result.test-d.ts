// Type tests of mcpResult: `npm run typecheck` compiles this file, and
// every `@ts-expect-error` must be an error. Nothing here runs.
import { defineTool, mcpResult, type McpContentBlock, type McpResult } from "../src/index.js";

const none = { type: "object", properties: {}, required: [] } as const;

// A handler may answer with MCP content: each block type with its fields.
defineTool({
  name: "chart",
  description: "A chart.",
  argsSchema: none,
  handler: (): McpResult =>
    mcpResult({
      content: [
        { type: "text", text: "Sales" },
        { type: "image", data: "AAAA", mimeType: "image/png", annotations: { audience: ["user"], priority: 1 } },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "https://example.test/a", name: "a", size: 3 },
        { type: "resource", resource: { uri: "test://r", text: "hi" } },
        { type: "resource", resource: { uri: "test://b", blob: "AAAA", mimeType: "application/octet-stream" } },
      ],
      structuredContent: { points: 12 },
    }),
});

// @ts-expect-error "video" is no content type of a tool result
const video: McpContentBlock = { type: "video", data: "AAAA" };
// @ts-expect-error an image needs its mimeType
const noMime: McpContentBlock = { type: "image", data: "AAAA" };
// @ts-expect-error a resource_link needs a name
const noName: McpContentBlock = { type: "resource_link", uri: "test://x" };
// @ts-expect-error structuredContent is an object
mcpResult({ content: [], structuredContent: [1, 2] });
// @ts-expect-error isError is a boolean
mcpResult({ content: [], isError: "yes" });
void [video, noMime, noName];
