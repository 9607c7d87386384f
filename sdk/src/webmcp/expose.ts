// The other direction: tools a page defines with defineTool are also
// registered with the browser's own document.modelContext, when it has
// one, so the browser's agent can use the same handlers (on by default;
// createSession({exposeToBrowser: false}) turns it off). They are
// unregistered when the session ends.

import type { PedelecError } from "../errors.js";
import type { AnyToolDefinition, JsonValue } from "../types.js";
import { nativeModelContext, ownTools } from "./install.js";
import { ownToolNames } from "./native-tools.js";
import type { WebMCPTool } from "./registrations.js";

export type ExposedSession = {
  runForBrowser(tool: string, input: unknown, signal: AbortSignal): Promise<JsonValue>;
  reportError(err: PedelecError): void;
  onCleanup(fn: () => void): void;
};

/** Registers defined with the native modelContext; nothing where there is none. */
export function exposeToBrowser(session: ExposedSession, defined: readonly AnyToolDefinition[], toError: (tool: string, err: unknown) => PedelecError) {
  const mc = nativeModelContext();
  if (!mc || defined.length === 0) return;
  const controller = new AbortController();
  session.onCleanup(() => controller.abort());
  for (const def of defined) {
    const tool: WebMCPTool = {
      name: def.name,
      description: def.description,
      inputSchema: "inputSchema" in def && def.inputSchema ? def.inputSchema : def.argsSchema,
      execute: (input, options) => session.runForBrowser(def.name, input, options?.signal ?? controller.signal),
    };
    const a = def.annotations;
    if (a?.title) tool.title = a.title;
    if (a) tool.annotations = { ...a };
    ownTools.add(tool);
    ownToolNames.add(def.name);
    controller.signal.addEventListener("abort", () => ownToolNames.delete(def.name), { once: true });
    let registered: Promise<unknown>;
    try {
      registered = Promise.resolve(mc.registerTool(tool, { signal: controller.signal }));
    } catch (err) {
      registered = Promise.reject(err);
    }
    registered.catch((err) => {
      if (!controller.signal.aborted) session.reportError(toError(def.name, err));
    });
  }
}
