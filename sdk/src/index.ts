// @kaoruisaac/pedelec: the browser SDK of Pedelec. Everything public is
// exported from here; the rest of src/ is internal.

export { Pedelec } from "./client.js";
export { PedelecSession } from "./session.js";
export { defineTool } from "./define-tool.js";
export { toManifest } from "./manifest.js";
export { PedelecError, ERROR_CODES } from "./errors.js";
export type { ErrorCode, PedelecErrorData, ToolErrorResult } from "./errors.js";
export { DEFAULT_URL } from "./client/url.js";
export { MAX_ASSET_BYTES } from "./assets.js";
export type { ReadAssetType, SandboxAsset, SandboxAssetPath } from "./assets.js";
export type {
  AnyToolDefinition,
  ArraySchema,
  BooleanSchema,
  ChatEvent,
  CreateSessionOptions,
  Disposer,
  EndReason,
  EndedEvent,
  ErrorListener,
  GenericToolHandler,
  JsonValue,
  Listener,
  NumberSchema,
  ObjectSchema,
  OneOfSchema,
  PedelecOptions,
  PendingTool,
  ProviderInfo,
  ProviderList,
  ResumeSessionOptions,
  SchemaNode,
  SessionStatus,
  SkillsInput,
  SkillsManifest,
  StatusEvent,
  StringSchema,
  ToolArgs,
  ToolArgsSchema,
  ToolContext,
  ToolDefinition,
  ToolManifestEntry,
  ToolName,
  ToolResult,
  ToolSpecificHandler,
  TurnResult,
} from "./types.js";
