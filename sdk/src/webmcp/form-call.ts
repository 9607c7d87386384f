// An agent's call of a declarative WebMCP tool (<form toolname>): the
// form is filled with the call's input and, with toolautosubmit,
// submitted; without it the submit button gets the focus and the call
// waits for the user to submit (as Chromium does). What the call returns:
//   - the value the page gave SubmitEvent.respondWith(...) (the draft's
//     explainer: preventDefault() first, then respondWith);
//   - a form whose submission navigates: {submitted, navigated: true, url,
//     method}, answered while the page is still here (the navigation
//     unloads it right after);
//   - a submission the page cancelled without respondWith: {submitted,
//     navigated: false} and a note that the page gave no result.
// Where the browser has no agentInvoked/respondWith on SubmitEvent, they
// are added here, for the submissions this file starts or awaits.

import type { JsonValue } from "../types.js";
import { formParams } from "./form-schema.js";
import { pageShared } from "./shared.js";

type Watched = {
  form: HTMLFormElement;
  /** Set by respondWith. */
  response?: Promise<unknown>;
  event?: SubmitEvent;
  settle?: (ev: SubmitEvent) => void;
  /** Ends the wait when a later call takes the form over. */
  fail?: (err: Error) => void;
};

type Shared = {
  /** Submissions an agent's call started or waits for, by the event once it fired. */
  byEvent: WeakMap<Event, Watched>;
  /** Forms whose next submission is an agent's, and what to do with it. */
  pending: Map<HTMLFormElement, Watched>;
};

// One per page, shared by the SDK's copies (shared.ts): one set of listeners.
function shared(): Shared {
  return pageShared("formcalls.v1", () => {
    const s: Shared = { byEvent: new WeakMap(), pending: new Map() };
    // Capture on window runs before any listener of the page's form: the
    // event is the agent's from its first listener on.
    window.addEventListener("submit", (ev) => claim(s, ev), true);
    // Bubbling on window runs after the form's own listeners: whether the
    // page cancelled it is known here (or, if a listener stopped it, in
    // the task after).
    window.addEventListener("submit", (ev) => finish(s, ev), false);
    patchSubmitEvent(s);
    return s;
  });
}

function claim(s: Shared, ev: Event) {
  const form = ev.target;
  if (!(form instanceof HTMLFormElement)) return;
  const w = s.pending.get(form);
  if (!w) return;
  s.pending.delete(form);
  w.event = ev as SubmitEvent;
  s.byEvent.set(ev, w);
  setTimeout(() => finish(s, ev), 0);
}

function finish(s: Shared, ev: Event) {
  const w = s.byEvent.get(ev);
  if (!w?.settle) return;
  const settle = w.settle;
  w.settle = undefined;
  settle(ev as SubmitEvent);
}

function domError(message: string, name: string): Error {
  return typeof DOMException === "function" ? new DOMException(message, name) : Object.assign(new Error(message), { name });
}

/** SubmitEvent.agentInvoked and respondWith, where the browser has neither. */
function patchSubmitEvent(s: Shared) {
  if (typeof SubmitEvent === "undefined" || "respondWith" in SubmitEvent.prototype) return;
  Object.defineProperty(SubmitEvent.prototype, "agentInvoked", {
    configurable: true,
    get(this: SubmitEvent) {
      return s.byEvent.has(this);
    },
  });
  Object.defineProperty(SubmitEvent.prototype, "respondWith", {
    configurable: true,
    writable: true,
    value(this: SubmitEvent, response: unknown) {
      const w = s.byEvent.get(this);
      if (!w) throw domError("respondWith: this submission was not made by an agent (SubmitEvent.agentInvoked is false)", "InvalidStateError");
      if (!this.defaultPrevented) throw domError("respondWith: call preventDefault() on the submit event first, so the form does not also navigate", "InvalidStateError");
      if (w.response) throw domError("respondWith: already called for this submission", "InvalidStateError");
      w.response = Promise.resolve(response);
    },
  });
}

/**
 * Watches form's next submission, made by the browser's own agent
 * (native WebMCP's executeTool) or by this file: resolves with the
 * submit event and what respondWith was given, once the page's listeners
 * have run. Stop it with the returned cancel.
 */
export function watchSubmission(form: HTMLFormElement): { submitted: Promise<Watched & { event: SubmitEvent }>; cancel(): void } {
  const s = shared();
  const w: Watched = { form };
  const submitted = new Promise<Watched & { event: SubmitEvent }>((resolve, reject) => {
    w.settle = () => resolve(w as Watched & { event: SubmitEvent });
    w.fail = reject;
  });
  submitted.catch(() => {});
  // One submission answers one call: an earlier call still waiting on this form is over.
  s.pending.get(form)?.fail?.(new Error("another call of this tool filled the form before it was submitted"));
  s.pending.set(form, w);
  return {
    submitted,
    cancel: () => {
      if (s.pending.get(form) === w) s.pending.delete(form);
      w.settle = undefined;
    },
  };
}

/**
 * Submission results whose navigation replaces this page (target _self):
 * a session that follows the page lets the next page answer them
 * (leaving.ts). Shared by the SDK's copies, as the registrations are.
 */
const navigations: WeakSet<object> = pageShared("formNavigations.v1", () => new WeakSet<object>());

/** True for a submission result whose navigation unloads this page. */
export function isNavigation(value: unknown): value is JsonValue {
  return typeof value === "object" && value !== null && navigations.has(value);
}

/** What the agent gets for a submission: respondWith's value, or where it went. */
export async function submissionResult(w: Watched & { event: SubmitEvent }): Promise<JsonValue> {
  if (w.response) {
    let value: unknown;
    try {
      value = await w.response;
    } catch (err) {
      throw err instanceof Error ? err : new Error(`the page's respondWith promise rejected: ${String(err)}`);
    }
    return value === undefined ? null : (value as JsonValue);
  }
  const { form, event } = w;
  const submitter = event.submitter as HTMLButtonElement | HTMLInputElement | null;
  if (event.defaultPrevented) {
    return {
      submitted: true,
      navigated: false,
      note: "The page handled the submission itself and gave no result (it called preventDefault() without SubmitEvent.respondWith()); look at the page to see what it did.",
    };
  }
  const method = (submitter?.getAttribute("formmethod") ? submitter.formMethod : form.method).toLowerCase();
  if (method === "dialog") return { submitted: true, navigated: false, note: "The form closed its dialog." };
  const action = new URL(submitter?.getAttribute("formaction") ? submitter.formAction : form.action, document.baseURI);
  if (method === "get") {
    const data = new FormData(form, submitter ?? undefined);
    action.search = new URLSearchParams(data as unknown as Record<string, string>).toString();
  }
  const target = (submitter?.getAttribute("formtarget") ?? form.target) || "_self";
  const result: Record<string, JsonValue> = { submitted: true, navigated: true, url: action.href, method: method.toUpperCase() };
  if (target !== "_self") result.target = target;
  else navigations.add(result);
  return result;
}

/**
 * Fills form with input: each parameter the input names is set as a user
 * would set it, with input and change events so the page's own code (a
 * framework's state) sees it. Parameters the input leaves out keep their
 * value.
 */
export function fillForm(form: HTMLFormElement, input: Record<string, unknown>) {
  for (const p of formParams(form)) {
    if (!Object.prototype.hasOwnProperty.call(input, p.name)) continue;
    const value = input[p.name];
    const first = p.controls[0]!;
    if (first instanceof HTMLInputElement && (first.type === "checkbox" || first.type === "radio")) {
      const boxes = p.controls as HTMLInputElement[];
      const want = (b: HTMLInputElement) =>
        first.type === "radio" ? b.value === value : boxes.length === 1 ? value === true : Array.isArray(value) && value.includes(b.value);
      // A click, as the user's: it toggles and fires input and change.
      for (const b of boxes) if (b.checked !== want(b) && (first.type !== "radio" || want(b))) b.click();
      continue;
    }
    if (first instanceof HTMLSelectElement && first.multiple) {
      const wanted = new Set(Array.isArray(value) ? value.map(String) : [String(value)]);
      for (const o of Array.from(first.options)) o.selected = wanted.has(o.value);
      fire(first);
      continue;
    }
    setValue(first, value === null || value === undefined ? "" : String(value));
  }
}

/** Sets a control's value through its prototype's setter (what frameworks that track value listen to). */
function setValue(el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, value: string) {
  const proto = Object.getPrototypeOf(el) as object;
  const setter = Object.getOwnPropertyDescriptor(proto, "value")?.set;
  if (setter) setter.call(el, value);
  else el.value = value;
  fire(el);
}

function fire(el: Element) {
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

/** The form's submit button: the first one, as implicit submission picks it. */
function submitButton(form: HTMLFormElement): HTMLButtonElement | HTMLInputElement | null {
  for (const el of Array.from(form.elements)) {
    if (el instanceof HTMLButtonElement && el.type === "submit" && !el.disabled) return el;
    if (el instanceof HTMLInputElement && (el.type === "submit" || el.type === "image") && !el.disabled) return el;
  }
  return null;
}

/** What the form's own checks refuse, per field, after a submission it blocked. */
function invalidFields(form: HTMLFormElement): string {
  const bad: string[] = [];
  for (const el of Array.from(form.elements)) {
    const c = el as HTMLInputElement;
    if (typeof c.checkValidity === "function" && c.willValidate && !c.checkValidity()) bad.push(`${c.name || c.id || c.tagName.toLowerCase()}: ${c.validationMessage}`);
  }
  return bad.join("; ");
}

/**
 * The polyfill's execute steps of a declarative tool: fill, then submit
 * (toolautosubmit) or wait for the user's submission, and answer with
 * submissionResult. The signal (the agent cancelled, the deadline passed)
 * stops the wait.
 */
export async function callForm(form: HTMLFormElement, input: Record<string, unknown>, signal: AbortSignal | undefined): Promise<JsonValue> {
  if (signal?.aborted) throw signal.reason;
  if (!form.isConnected) throw new Error(`the form of this tool is no longer in the page`);
  fillForm(form, input ?? {});
  const watch = watchSubmission(form);
  const autosubmit = form.hasAttribute("toolautosubmit");
  const stopped = new Promise<never>((_, reject) => {
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    // The explainer: a form reset cancels the call in flight.
    form.addEventListener("reset", () => reject(new Error("the form was reset while the call ran")), { once: true });
  });
  stopped.catch(() => {}); // settled by whichever comes first; a later rejection is nobody's
  try {
    if (autosubmit) {
      form.requestSubmit();
      const w = await Promise.race([watch.submitted, nextTask().then(() => null)]);
      // requestSubmit dispatches submit at once, or not at all when the
      // form's own constraints refuse the values.
      if (!w) throw new Error(`the form refused the values: ${invalidFields(form) || "it did not submit"}`);
      return await Promise.race([submissionResult(w), stopped]);
    }
    const button = submitButton(form);
    if (!button) throw new Error("the form has no toolautosubmit and no submit button: the user cannot submit it (add toolautosubmit, or a submit button)");
    button.focus();
    const w = await Promise.race([watch.submitted, stopped]);
    return await Promise.race([submissionResult(w), stopped]);
  } finally {
    watch.cancel();
  }
}

/** Resolves after the current task: what a submit dispatches synchronously has run by then. */
export function nextTask(): Promise<void> {
  return new Promise((r) => setTimeout(r, 0));
}
