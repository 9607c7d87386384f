// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.
export { PedelecProvider, usePedelec, useSession } from "./provider.js";
export type { PedelecProviderProps } from "./provider.js";
export { useTool } from "./use-tool.js";
export type { ToolDefinitionInput, UseToolResult } from "./use-tool.js";
export { useChat } from "./use-chat.js";
export type { UseChatResult } from "./use-chat.js";
export { useNavigatedCall } from "./use-navigated-call.js";
export type { ChatMessage, SessionState } from "./store.js";
