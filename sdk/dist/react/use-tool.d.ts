// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.
import { PedelecError, type AnyToolDefinition, type ToolCallContext } from "../pedelec.js";
/** A tool's definition without its handler (useTool's second argument is the handler). */
export type ToolDefinitionInput = Omit<AnyToolDefinition, "handler">;
export type UseToolResult = {
    /** The tool is a tool of the session now. */
    registered: boolean;
    /** Why it could not be added (INVALID_INPUT naming the problem), or null. */
    error: PedelecError | null;
};
export declare function useTool<TArgs = any>(definition: ToolDefinitionInput, handler: (args: TArgs, ctx: ToolCallContext) => unknown): UseToolResult;
