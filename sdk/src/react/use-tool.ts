// useTool(definition, handler): a tool of the provider's session while the
// component is mounted. It is added on mount and removed on unmount
// through update_tools (the agent gets TOOL_NOT_FOUND once it is gone).
// The handler is read at each call, so a new handler (a new closure each
// render) never re-registers; a new definition object does not either:
// only a change of its text (name, description, schemas, annotations,
// timeout) does, as usewebmcp and CopilotKit behave.

import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { addTool, PedelecError, type AnyToolDefinition, type ToolCallContext } from "@kaoruisaac/pedelec";
import { useSession } from "./provider.js";

/** A tool's definition without its handler (useTool's second argument is the handler). */
export type ToolDefinitionInput = Omit<AnyToolDefinition, "handler">;

export type UseToolResult = {
  /** The tool is a tool of the session now. */
  registered: boolean;
  /** Why it could not be added (INVALID_INPUT naming the problem), or null. */
  error: PedelecError | null;
};

// Effects that must run before the browser paints, without React's
// warning on a server render.
const useIsomorphicLayoutEffect = typeof window === "undefined" ? useEffect : useLayoutEffect;

export function useTool<TArgs = any>(definition: ToolDefinitionInput, handler: (args: TArgs, ctx: ToolCallContext) => unknown): UseToolResult {
  const { session } = useSession();
  const handlerRef = useRef(handler);
  const definitionRef = useRef(definition);
  useIsomorphicLayoutEffect(() => {
    handlerRef.current = handler;
    definitionRef.current = definition;
  });
  const [state, setState] = useState<UseToolResult>({ registered: false, error: null });
  const text = definitionText(definition);

  useEffect(() => {
    if (!session || session.getStatus() === "ended") return;
    let dispose: (() => void) | undefined;
    try {
      const def = { ...definitionRef.current, handler: (args: unknown, ctx: ToolCallContext) => handlerRef.current(args as TArgs, ctx) };
      dispose = addTool(session, def as AnyToolDefinition);
      setState({ registered: true, error: null });
    } catch (err) {
      const error = PedelecError.from(err);
      if (typeof console !== "undefined") console.error(`useTool(${JSON.stringify(definitionRef.current?.name)}): ${error.message}`);
      setState({ registered: false, error });
    }
    return () => {
      dispose?.();
      setState((s) => (s.registered ? { registered: false, error: s.error } : s));
    };
  }, [session, text]);

  return state;
}

/** What re-registers a tool when it changes: everything Core is told about it. */
function definitionText(d: ToolDefinitionInput): string {
  const { name, description, argsSchema, outputSchema, annotations, timeoutMs, needsApproval } = d as AnyToolDefinition & Record<string, unknown>;
  try {
    return JSON.stringify([name, description, argsSchema, outputSchema, annotations, timeoutMs, needsApproval]);
  } catch {
    return String(name); // a schema JSON cannot hold: addTool names the problem
  }
}
