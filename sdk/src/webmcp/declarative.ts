// Declarative WebMCP (the draft's <form toolname tooldescription
// toolautosubmit>), where the browser does not offer the page its own
// declarative tools (no native modelContext.getTools): each such form in
// the document is a tool in the page's registrations, with the input
// schema form-schema.ts synthesizes and the execute steps of form-call.ts.
// Forms added, removed or changed later (their tool attributes, their
// controls) are followed with a MutationObserver, so a session that asked
// for WebMCP tools sends Core the new list (update_tools).

import { callForm } from "./form-call.js";
import { synthesizeFormSchema } from "./form-schema.js";
import { pageShared } from "./shared.js";
import { registrations, WEBMCP_NAME_PATTERN, type WebMCPRegistration } from "./registrations.js";


/** The attributes that change a form tool's definition. */
const WATCHED = [
  "toolname", "tooldescription", "toolautosubmit", "toolparamtitle", "toolparamdescription",
  "name", "type", "required", "min", "max", "step", "pattern", "minlength", "maxlength",
  "multiple", "disabled", "readonly", "value", "label", "for", "form",
];

type Declared = { key: string; reg: WebMCPRegistration; cancel: (why: string) => void };

/** Starts following the document's <form toolname> tools, once per page. */
export function startDeclarativeTools() {
  if (typeof document === "undefined" || typeof MutationObserver === "undefined") return;
  let first = false;
  pageShared("declarative.v1", () => (first = true));
  if (!first) return;
  const declared = new Map<HTMLFormElement, Declared>();
  let scheduled = false;
  const rescan = () => {
    scheduled = false;
    scan(declared);
  };
  const observer = new MutationObserver(() => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(rescan);
  });
  // characterData: a label's or an option's text is part of a description.
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: WATCHED });
  scan(declared);
}

/** Brings registrations in line with the forms the document has now. */
function scan(declared: Map<HTMLFormElement, Declared>) {
  const now = new Map<HTMLFormElement, { key: string; make: () => Omit<Declared, "key"> }>();
  for (const form of Array.from(document.querySelectorAll<HTMLFormElement>("form[toolname]"))) {
    const d = definition(form);
    if (d) now.set(form, d);
  }
  for (const [form, d] of declared) {
    if (now.get(form)?.key !== d.key) {
      registrations.remove(d.reg);
      declared.delete(form);
      // The explainer: a changed tool declaration cancels the calls in flight.
      d.cancel(form.isConnected ? "the form's tool declaration changed while the call ran" : "the form was removed from the page while the call ran");
    }
  }
  for (const [form, d] of now) {
    if (declared.has(form)) continue;
    const made = d.make();
    // A name already taken (by registerTool, or an earlier form) stays its first owner's.
    if (registrations.has(made.reg.name)) continue;
    registrations.add(made.reg);
    declared.set(form, { key: d.key, ...made });
  }
}

/**
 * A form's tool, or undefined when its toolname is not a WebMCP name (1
 * to 128 of A-Z a-z 0-9 _ - .) or it has no tooldescription, as
 * registerTool refuses those.
 */
function definition(form: HTMLFormElement): { key: string; make: () => Omit<Declared, "key"> } | undefined {
  const name = form.getAttribute("toolname")?.trim() ?? "";
  const description = form.getAttribute("tooldescription")?.trim() ?? "";
  if (!name || name.length > 128 || !WEBMCP_NAME_PATTERN.test(name) || !description) return undefined;
  const inputSchema = JSON.stringify(synthesizeFormSchema(form));
  const key = JSON.stringify([name, description, inputSchema, form.hasAttribute("toolautosubmit")]);
  return {
    key,
    make: () => {
      const inflight = new Set<AbortController>();
      const execute = async (input: Record<string, unknown>, options?: { signal?: AbortSignal }) => {
        const controller = new AbortController();
        const outer = options?.signal;
        if (outer?.aborted) throw outer.reason;
        const forward = () => controller.abort(outer?.reason);
        outer?.addEventListener("abort", forward, { once: true });
        inflight.add(controller);
        try {
          return await callForm(form, input, controller.signal);
        } finally {
          inflight.delete(controller);
          outer?.removeEventListener("abort", forward);
        }
      };
      const reg: WebMCPRegistration = { name, description, inputSchema, execute, readOnlyHint: false, untrustedContentHint: false, exposedTo: [], source: "form" };
      return { reg, cancel: (why) => inflight.forEach((c) => c.abort(new Error(why))) };
    },
  };
}
