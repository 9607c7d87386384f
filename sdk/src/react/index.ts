// @kaoruisaac/pedelec/react: the React binding (React 18 or 19). A
// provider holds the client and its subtree's session; hooks read the
// session, add tools while a component is mounted, and drive the chat.
// It imports the SDK as the package's main module, so both share one
// set of classes and one list of WebMCP tools (docs/react.md).

export { PedelecProvider, usePedelec, useSession } from "./provider.js";
export type { PedelecProviderProps } from "./provider.js";
export { useTool } from "./use-tool.js";
export type { ToolDefinitionInput, UseToolResult } from "./use-tool.js";
export { useChat } from "./use-chat.js";
export type { UseChatResult } from "./use-chat.js";
export { useNavigatedCall } from "./use-navigated-call.js";
export type { ChatMessage, SessionState } from "./store.js";
