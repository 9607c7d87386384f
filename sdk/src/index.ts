// @kaoruisaac/pedelec: the browser SDK of Pedelec. Everything public is
// exported from here; the rest of src/ is internal. The names and
// signatures are the original Pedelec SDK's (v0.1.23); docs/compat.md maps
// them, and lists what this SDK adds.

export { Pedelec } from "./client.js";
export { PedelecSession } from "./session.js";
export { defineTool, asksConsent, type StandardToolDefinition } from "./define-tool.js";
export { isStandardSchema, type StandardSchemaV1, type StandardSchemaInput } from "./standard-schema.js";
export { toManifest } from "./manifest.js";
export { PedelecError, PedelecSdkError, ERROR_CODES } from "./errors.js";
export { refuse, ToolRefusal } from "./refuse.js";
export { mcpResult } from "./mcp-result.js";
export type { McpAnnotations, McpContentBlock, McpResult, McpToolResult } from "./mcp-result.js";
export type { ToolRefusalInput } from "./refuse.js";
export type { ErrorCode, PedelecErrorData, ToolErrorResult } from "./errors.js";
export { DEFAULT_URL } from "./client/url.js";
export { ORIGINAL_PROVIDER_CODES, PROVIDER_TITLES } from "./providers.gen.js";
export { MAX_ASSET_BYTES } from "./assets.js";
export { installModelContext } from "./webmcp/install.js";
export { addTool } from "./page-tools.js";
export { onNavigatedCall, FOLLOW_GRACE_MS } from "./follow.js";
export type { ModelContextLike, WebMCPAnnotations, WebMCPRegisterOptions, WebMCPTool } from "./webmcp/registrations.js";
export type {
  // the original's names
  ApprovalPending,
  ApprovalStatus,
  ChatEventContext,
  CreateSessionInput,
  EndedEventContext,
  ErrorEventContext,
  JsonPrimitive,
  JsonValue,
  PedelecAvailability,
  PedelecEventContext,
  PedelecOptions,
  PedelecDetailedStatus,
  PedelecSessionStatus,
  PedelecSettings,
  ProviderCode,
  AnyProviderCode,
  ProviderListOptions,
  ProviderInfo,
  ReadAssetType,
  SandboxAsset,
  SandboxAssetPath,
  SerializableSkillsManifest,
  SerializableToolManifest,
  SkillsInput,
  StatusEventContext,
  ToolAnnotations,
  ToolArgsArraySchema,
  ToolArgsBooleanSchema,
  ToolArgsIntegerSchema,
  ToolArgsNumberSchema,
  ToolArgsObjectSchema,
  ToolArgsOneOfSchema,
  ToolArgsSchema,
  ToolArgsSchemaMeta,
  ToolArgsSchemaNode,
  ToolArgsStringSchema,
  ToolCallContext,
  ToolDefinition,
  ToolDefinitionFields,
  InputSchemaToolDefinition,
  SerializableInputSchemaToolManifest,
  JsonSchema,
  JsonObjectSchema,
  ToolNameOf,
  ToolSpecificHandler,
  // Pedelec Core additions
  AnyToolDefinition,
  Disposer,
  EndReason,
  GenericToolHandler,
  PendingTool,
  ProviderDetails,
  ProviderList,
  ResumeSessionOptions,
  ToolArgs,
  ToolProgress,
  AgentActivity,
  ToolResult,
  TurnResult,
  WebMCPSessionOptions,
  FollowPageOptions,
  NavigatedCall,
  // our previous names (deprecated aliases)
  ArraySchema,
  BooleanSchema,
  CreateSessionOptions,
  NumberSchema,
  ObjectSchema,
  OneOfSchema,
  SchemaNode,
  SessionStatus,
  SkillsManifest,
  StringSchema,
  ToolContext,
  ToolManifestEntry,
  ToolName,
} from "./types.js";
