// @kaoruisaac/pedelec webmcp.js: installs document.modelContext for Pedelec. Generated from sdk/src by `npm run build`; do not edit.
"use strict";
(() => {
  var __defProp = Object.defineProperty;
  var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
  var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

  // src/webmcp/form-schema.ts
  var SKIPPED_INPUTS = /* @__PURE__ */ new Set(["hidden", "file", "submit", "reset", "button", "image"]);
  var SHAPED = {
    date: ["^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$", "A date, YYYY-MM-DD"],
    time: ["^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$", "A time, HH:MM"],
    "datetime-local": ["^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$", "A local date and time, YYYY-MM-DDTHH:MM"],
    month: ["^[0-9]{4}-(0[1-9]|1[0-2])$", "A month, YYYY-MM"],
    week: ["^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$", "A week, YYYY-Www"],
    color: ["^#[0-9a-fA-F]{6}$", "A colour, #rrggbb"]
  };
  function formParams(form) {
    const byName = /* @__PURE__ */ new Map();
    for (const el of Array.from(form.elements)) {
      if (!isParamControl(el)) continue;
      const name = el.name;
      let p = byName.get(name);
      if (!p) byName.set(name, p = { name, controls: [] });
      p.controls.push(el);
    }
    return [...byName.values()];
  }
  function isParamControl(el) {
    if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement)) return false;
    if (!el.name || el.matches(":disabled")) return false;
    if (el instanceof HTMLSelectElement) return true;
    if (el.readOnly) return false;
    return !(el instanceof HTMLInputElement && SKIPPED_INPUTS.has(el.type));
  }
  function synthesizeFormSchema(form) {
    const schema = { type: "object", properties: {}, required: [] };
    for (const p of formParams(form)) {
      schema.properties[p.name] = paramSchema(p);
      if (p.controls.some((c) => c.required)) schema.required.push(p.name);
    }
    return schema;
  }
  function paramSchema(p) {
    const first = p.controls[0];
    let s;
    let described;
    if (first instanceof HTMLSelectElement) {
      const options = Array.from(first.options).filter((o) => !o.disabled);
      const values = options.map((o) => o.value);
      described = choices(options.map((o) => [o.value, o.label || o.text]));
      const item = { type: "string", enum: unique(values) };
      s = first.multiple ? { type: "array", items: item, uniqueItems: true } : item;
    } else if (first instanceof HTMLInputElement && first.type === "radio") {
      const radios = p.controls;
      s = { type: "string", enum: unique(radios.map((r) => r.value)) };
      described = choices(radios.map((r) => [r.value, labelOf(r)]));
    } else if (first instanceof HTMLInputElement && first.type === "checkbox") {
      const boxes = p.controls;
      if (boxes.length === 1) s = { type: "boolean" };
      else {
        s = { type: "array", items: { type: "string", enum: unique(boxes.map((b) => b.value)) }, uniqueItems: true };
        described = choices(boxes.map((b) => [b.value, labelOf(b)]));
      }
    } else if (first instanceof HTMLInputElement && (first.type === "number" || first.type === "range")) {
      s = numberSchema(first);
    } else if (first instanceof HTMLInputElement && SHAPED[first.type]) {
      const [pattern, words] = SHAPED[first.type];
      s = { type: "string", pattern };
      described = words + boundsInWords(first);
    } else {
      s = stringSchema(first);
    }
    const title = attr(p.controls, "toolparamtitle");
    if (title) s.title = title;
    const own = attr(p.controls, "toolparamdescription") ?? labelOfGroup(p);
    const description = [own, described].filter(Boolean).join(". ");
    if (description) s.description = description;
    return s;
  }
  function stringSchema(el) {
    const s = { type: "string" };
    if (el.minLength > 0) s.minLength = el.minLength;
    if (el.maxLength >= 0) s.maxLength = el.maxLength;
    if (el instanceof HTMLInputElement && el.pattern && validPattern(el.pattern)) {
      s.pattern = `^(?:${el.pattern})$`;
    }
    return s;
  }
  function validPattern(p) {
    try {
      new RegExp(p, "v");
      return true;
    } catch {
      return false;
    }
  }
  function numberSchema(el) {
    const min = finite(el.min) ?? (el.type === "range" ? 0 : void 0);
    const max = finite(el.max) ?? (el.type === "range" ? 100 : void 0);
    const stepAttr = el.getAttribute("step");
    const step = stepAttr === null ? 1 : stepAttr.trim().toLowerCase() === "any" ? void 0 : finite(stepAttr) ?? 1;
    const base = min ?? 0;
    const whole = step !== void 0 && step > 0 && Number.isInteger(step) && Number.isInteger(base);
    const s = { type: whole ? "integer" : "number" };
    if (step !== void 0 && step > 0 && step !== 1 && base === 0) s.multipleOf = step;
    if (min !== void 0) s.minimum = min;
    if (max !== void 0) s.maximum = max;
    return s;
  }
  function finite(v) {
    if (v === null || v === void 0 || v.trim() === "") return void 0;
    const n = Number(v);
    return Number.isFinite(n) ? n : void 0;
  }
  function boundsInWords(el) {
    const parts = [];
    if (el.min) parts.push(`from ${el.min}`);
    if (el.max) parts.push(`to ${el.max}`);
    return parts.length ? ` (${parts.join(" ")})` : "";
  }
  function choices(pairs) {
    const told = pairs.filter(([v, l]) => l && l.trim() !== v).map(([v, l]) => `${JSON.stringify(v)} (${l.trim()})`);
    return told.length ? `One of: ${told.join(", ")}` : void 0;
  }
  function unique(values) {
    return [...new Set(values)];
  }
  function attr(controls, name) {
    for (const c of controls) {
      const v = c.getAttribute(name)?.trim();
      if (v) return v;
    }
    return void 0;
  }
  function labelOf(el) {
    const label = el.labels?.[0];
    if (!label) return "";
    const copy = label.cloneNode(true);
    copy.querySelectorAll("select, textarea, input").forEach((n) => n.remove());
    return (copy.textContent ?? "").replace(/\s+/g, " ").trim();
  }
  function labelOfGroup(p) {
    const first = p.controls[0];
    const grouped = first instanceof HTMLInputElement && (first.type === "radio" || first.type === "checkbox" && p.controls.length > 1);
    if (grouped) {
      const legend = first.closest("fieldset")?.querySelector("legend")?.textContent;
      return legend ? legend.replace(/\s+/g, " ").trim() : "";
    }
    return labelOf(first);
  }

  // src/webmcp/shared.ts
  function pageShared(key, make) {
    const sym = /* @__PURE__ */ Symbol.for(`pedelec.webmcp.${key}`);
    const g = globalThis;
    let v = g[sym];
    if (v === void 0) {
      v = make();
      Object.defineProperty(globalThis, sym, { value: v, configurable: false, enumerable: false, writable: false });
    }
    return v;
  }

  // src/webmcp/form-call.ts
  function shared() {
    return pageShared("formcalls.v1", () => {
      const s = { byEvent: /* @__PURE__ */ new WeakMap(), pending: /* @__PURE__ */ new Map() };
      window.addEventListener("submit", (ev) => claim(s, ev), true);
      window.addEventListener("submit", (ev) => finish(s, ev), false);
      patchSubmitEvent(s);
      return s;
    });
  }
  function claim(s, ev) {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement)) return;
    const w = s.pending.get(form);
    if (!w) return;
    s.pending.delete(form);
    w.event = ev;
    s.byEvent.set(ev, w);
    setTimeout(() => finish(s, ev), 0);
  }
  function finish(s, ev) {
    const w = s.byEvent.get(ev);
    if (!w?.settle) return;
    const settle = w.settle;
    w.settle = void 0;
    settle(ev);
  }
  function domError(message, name) {
    return typeof DOMException === "function" ? new DOMException(message, name) : Object.assign(new Error(message), { name });
  }
  function patchSubmitEvent(s) {
    if (typeof SubmitEvent === "undefined" || "respondWith" in SubmitEvent.prototype) return;
    Object.defineProperty(SubmitEvent.prototype, "agentInvoked", {
      configurable: true,
      get() {
        return s.byEvent.has(this);
      }
    });
    Object.defineProperty(SubmitEvent.prototype, "respondWith", {
      configurable: true,
      writable: true,
      value(response) {
        const w = s.byEvent.get(this);
        if (!w) throw domError("respondWith: this submission was not made by an agent (SubmitEvent.agentInvoked is false)", "InvalidStateError");
        if (!this.defaultPrevented) throw domError("respondWith: call preventDefault() on the submit event first, so the form does not also navigate", "InvalidStateError");
        if (w.response) throw domError("respondWith: already called for this submission", "InvalidStateError");
        w.response = Promise.resolve(response);
      }
    });
  }
  function watchSubmission(form) {
    const s = shared();
    const w = { form };
    const submitted = new Promise((resolve, reject) => {
      w.settle = () => resolve(w);
      w.fail = reject;
    });
    submitted.catch(() => {
    });
    s.pending.get(form)?.fail?.(new Error("another call of this tool filled the form before it was submitted"));
    s.pending.set(form, w);
    return {
      submitted,
      cancel: () => {
        if (s.pending.get(form) === w) s.pending.delete(form);
        w.settle = void 0;
      }
    };
  }
  var navigations = pageShared("formNavigations.v1", () => /* @__PURE__ */ new WeakSet());
  async function submissionResult(w) {
    if (w.response) {
      let value;
      try {
        value = await w.response;
      } catch (err) {
        throw err instanceof Error ? err : new Error(`the page's respondWith promise rejected: ${String(err)}`);
      }
      return value === void 0 ? null : value;
    }
    const { form, event } = w;
    const submitter = event.submitter;
    if (event.defaultPrevented) {
      return {
        submitted: true,
        navigated: false,
        note: "The page handled the submission itself and gave no result (it called preventDefault() without SubmitEvent.respondWith()); look at the page to see what it did."
      };
    }
    const method = (submitter?.getAttribute("formmethod") ? submitter.formMethod : form.method).toLowerCase();
    if (method === "dialog") return { submitted: true, navigated: false, note: "The form closed its dialog." };
    const action = new URL(submitter?.getAttribute("formaction") ? submitter.formAction : form.action, document.baseURI);
    if (method === "get") {
      const data = new FormData(form, submitter ?? void 0);
      action.search = new URLSearchParams(data).toString();
    }
    const target = (submitter?.getAttribute("formtarget") ?? form.target) || "_self";
    const result = { submitted: true, navigated: true, url: action.href, method: method.toUpperCase() };
    if (target !== "_self") result.target = target;
    else navigations.add(result);
    return result;
  }
  function fillForm(form, input) {
    for (const p of formParams(form)) {
      if (!Object.prototype.hasOwnProperty.call(input, p.name)) continue;
      const value = input[p.name];
      const first = p.controls[0];
      if (first instanceof HTMLInputElement && (first.type === "checkbox" || first.type === "radio")) {
        const boxes = p.controls;
        const want = (b) => first.type === "radio" ? b.value === value : boxes.length === 1 ? value === true : Array.isArray(value) && value.includes(b.value);
        for (const b of boxes) if (b.checked !== want(b) && (first.type !== "radio" || want(b))) b.click();
        continue;
      }
      if (first instanceof HTMLSelectElement && first.multiple) {
        const wanted = new Set(Array.isArray(value) ? value.map(String) : [String(value)]);
        for (const o of Array.from(first.options)) o.selected = wanted.has(o.value);
        fire(first);
        continue;
      }
      setValue(first, value === null || value === void 0 ? "" : String(value));
    }
  }
  function setValue(el, value) {
    const proto = Object.getPrototypeOf(el);
    const setter = Object.getOwnPropertyDescriptor(proto, "value")?.set;
    if (setter) setter.call(el, value);
    else el.value = value;
    fire(el);
  }
  function fire(el) {
    el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  }
  function submitButton(form) {
    for (const el of Array.from(form.elements)) {
      if (el instanceof HTMLButtonElement && el.type === "submit" && !el.disabled) return el;
      if (el instanceof HTMLInputElement && (el.type === "submit" || el.type === "image") && !el.disabled) return el;
    }
    return null;
  }
  function invalidFields(form) {
    const bad = [];
    for (const el of Array.from(form.elements)) {
      const c = el;
      if (typeof c.checkValidity === "function" && c.willValidate && !c.checkValidity()) bad.push(`${c.name || c.id || c.tagName.toLowerCase()}: ${c.validationMessage}`);
    }
    return bad.join("; ");
  }
  async function callForm(form, input, signal) {
    if (signal?.aborted) throw signal.reason;
    if (!form.isConnected) throw new Error(`the form of this tool is no longer in the page`);
    fillForm(form, input ?? {});
    const watch = watchSubmission(form);
    const autosubmit = form.hasAttribute("toolautosubmit");
    const stopped = new Promise((_, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      form.addEventListener("reset", () => reject(new Error("the form was reset while the call ran")), { once: true });
    });
    stopped.catch(() => {
    });
    try {
      if (autosubmit) {
        form.requestSubmit();
        const w2 = await Promise.race([watch.submitted, nextTask().then(() => null)]);
        if (!w2) throw new Error(`the form refused the values: ${invalidFields(form) || "it did not submit"}`);
        return await Promise.race([submissionResult(w2), stopped]);
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
  function nextTask() {
    return new Promise((r) => setTimeout(r, 0));
  }

  // src/webmcp/registrations.ts
  var WEBMCP_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
  var Registrations = class {
    constructor() {
      __publicField(this, "tools", /* @__PURE__ */ new Map());
      __publicField(this, "listeners", /* @__PURE__ */ new Set());
    }
    has(name) {
      return this.tools.has(name);
    }
    get(name) {
      return this.tools.get(name);
    }
    list() {
      return [...this.tools.values()];
    }
    add(reg) {
      this.tools.set(reg.name, reg);
      this.changed();
    }
    /** Removes reg if it is still the registration for its name. */
    remove(reg) {
      if (this.tools.get(reg.name) !== reg) return false;
      this.tools.delete(reg.name);
      this.changed();
      return true;
    }
    /** Called after every change, synchronously; returns the unsubscribe. */
    subscribe(fn) {
      this.listeners.add(fn);
      return () => this.listeners.delete(fn);
    }
    changed() {
      for (const fn of [...this.listeners]) {
        try {
          fn();
        } catch {
        }
      }
    }
  };
  var registrations = pageShared("registrations.v1", () => new Registrations());

  // src/webmcp/declarative.ts
  var WATCHED = [
    "toolname",
    "tooldescription",
    "toolautosubmit",
    "toolparamtitle",
    "toolparamdescription",
    "name",
    "type",
    "required",
    "min",
    "max",
    "step",
    "pattern",
    "minlength",
    "maxlength",
    "multiple",
    "disabled",
    "readonly",
    "value",
    "label",
    "for",
    "form"
  ];
  function startDeclarativeTools() {
    if (typeof document === "undefined" || typeof MutationObserver === "undefined") return;
    let first = false;
    pageShared("declarative.v1", () => first = true);
    if (!first) return;
    const declared = /* @__PURE__ */ new Map();
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
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: WATCHED });
    scan(declared);
  }
  function scan(declared) {
    const now = /* @__PURE__ */ new Map();
    for (const form of Array.from(document.querySelectorAll("form[toolname]"))) {
      const d = definition(form);
      if (d) now.set(form, d);
    }
    for (const [form, d] of declared) {
      if (now.get(form)?.key !== d.key) {
        registrations.remove(d.reg);
        declared.delete(form);
        d.cancel(form.isConnected ? "the form's tool declaration changed while the call ran" : "the form was removed from the page while the call ran");
      }
    }
    for (const [form, d] of now) {
      if (declared.has(form)) continue;
      const made = d.make();
      if (registrations.has(made.reg.name)) continue;
      registrations.add(made.reg);
      declared.set(form, { key: d.key, ...made });
    }
  }
  function definition(form) {
    const name = form.getAttribute("toolname")?.trim() ?? "";
    const description = form.getAttribute("tooldescription")?.trim() ?? "";
    if (!name || name.length > 128 || !WEBMCP_NAME_PATTERN.test(name) || !description) return void 0;
    const inputSchema = JSON.stringify(synthesizeFormSchema(form));
    const key = JSON.stringify([name, description, inputSchema, form.hasAttribute("toolautosubmit")]);
    return {
      key,
      make: () => {
        const inflight = /* @__PURE__ */ new Set();
        const execute = async (input, options) => {
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
        const reg = { name, description, inputSchema, execute, readOnlyHint: false, untrustedContentHint: false, exposedTo: [], source: "form" };
        return { reg, cancel: (why) => inflight.forEach((c) => c.abort(new Error(why))) };
      }
    };
  }

  // src/webmcp/model-context.ts
  var MAX_NAME_LENGTH = 128;
  function domError2(message, name) {
    if (typeof DOMException === "function") return new DOMException(message, name);
    const e = new Error(message);
    e.name = name;
    return e;
  }
  function potentiallyTrustworthy(url) {
    if (url.protocol === "https:" || url.protocol === "wss:" || url.protocol === "file:") return true;
    if (url.protocol !== "http:" && url.protocol !== "ws:") return false;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
  }
  var POLYFILL = /* @__PURE__ */ Symbol.for("pedelec.webmcp.polyfill");
  function isPolyfill(mc) {
    return mc[POLYFILL] === true;
  }
  var _a, _b;
  var ModelContextPolyfill = class extends (_b = EventTarget, _a = POLYFILL, _b) {
    constructor() {
      super(...arguments);
      __publicField(this, _a, true);
      __publicField(this, "handler", null);
    }
    /** The toolchange event handler attribute. */
    get ontoolchange() {
      return this.handler;
    }
    set ontoolchange(fn) {
      if (this.handler) this.removeEventListener("toolchange", this.handler);
      this.handler = typeof fn === "function" ? fn : null;
      if (this.handler) this.addEventListener("toolchange", this.handler);
    }
    /**
     * Registers a tool, following the draft's registerTool steps: rejects
     * with InvalidStateError for a taken name, an empty name or description,
     * or a name that is longer than 128 or has characters other than ASCII
     * letters, digits, "_", "-" and "."; with the exception JSON
     * serialization of inputSchema throws (a TypeError when it yields
     * nothing); with the signal's reason when it is already aborted; with
     * SecurityError for an exposedTo entry that is not a potentially
     * trustworthy origin. Aborting the signal later unregisters the tool.
     */
    registerTool(tool, options = {}) {
      let reg;
      try {
        reg = checkRegistration(tool, options);
      } catch (err) {
        return Promise.reject(err);
      }
      const signal = options?.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise((resolve, reject) => {
        registrations.add(reg);
        signal?.addEventListener(
          "abort",
          () => {
            if (registrations.remove(reg)) this.notify();
            reject(signal.reason);
          },
          { once: true }
        );
        setTimeout(() => {
          this.dispatchEvent(new Event("toolchange"));
          resolve(void 0);
        }, 0);
      });
    }
    notify() {
      setTimeout(() => this.dispatchEvent(new Event("toolchange")), 0);
    }
  };
  function checkRegistration(tool, options) {
    if (typeof tool !== "object" || tool === null) throw new TypeError("registerTool(tool): tool must be an object {name, description, inputSchema?, execute, annotations?}");
    const { name, description, title, execute, annotations } = tool;
    if (typeof name !== "string") throw new TypeError("registerTool(tool): tool.name is required and must be a string");
    if (typeof description !== "string") throw new TypeError(`registerTool(tool): tool.description of ${JSON.stringify(name)} is required and must be a string`);
    if (typeof execute !== "function") throw new TypeError(`registerTool(tool): tool.execute of ${JSON.stringify(name)} is required and must be a function`);
    if (registrations.has(name)) throw domError2(`registerTool: a tool named ${JSON.stringify(name)} is already registered; unregister it first (abort its signal)`, "InvalidStateError");
    if (name === "" || description === "") throw domError2(`registerTool: the tool's name and description must not be empty (name ${JSON.stringify(name)})`, "InvalidStateError");
    if (name.length > MAX_NAME_LENGTH || !WEBMCP_NAME_PATTERN.test(name)) {
      throw domError2(`registerTool: ${JSON.stringify(name)} is not a tool name: 1 to 128 ASCII letters, digits, "_", "-" and "."`, "InvalidStateError");
    }
    let inputSchema;
    if (tool.inputSchema !== void 0) {
      inputSchema = JSON.stringify(tool.inputSchema);
      if (inputSchema === void 0) throw new TypeError(`registerTool: the inputSchema of ${JSON.stringify(name)} does not serialize to JSON`);
    }
    const exposedTo = [];
    for (const origin of options?.exposedTo ?? []) {
      let url;
      try {
        url = new URL(String(origin));
      } catch {
        throw domError2(`registerTool: exposedTo entry ${JSON.stringify(origin)} is not a URL`, "SecurityError");
      }
      if (!potentiallyTrustworthy(url)) throw domError2(`registerTool: exposedTo entry ${JSON.stringify(origin)} is not a potentially trustworthy origin`, "SecurityError");
      exposedTo.push(url.origin);
    }
    return {
      name,
      title: typeof title === "string" ? title : void 0,
      description,
      inputSchema,
      execute,
      readOnlyHint: annotations?.readOnlyHint === true,
      untrustedContentHint: annotations?.untrustedContentHint === true,
      annotations: annotations && typeof annotations === "object" ? { ...annotations } : void 0,
      exposedTo
    };
  }

  // src/webmcp/native-tools.ts
  var ownToolNames = pageShared("ownToolNames.v1", () => /* @__PURE__ */ new Set());
  var MIRRORED = /* @__PURE__ */ Symbol.for("pedelec.webmcp.mirrored.v1");
  var HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "consequentialHint", "untrustedContentHint"];
  function canEnumerate(mc) {
    const m = mc;
    return typeof m.getTools === "function" && typeof m.executeTool === "function";
  }
  function mirrorNativeTools(mc) {
    const holder = mc;
    if (holder[MIRRORED]) return holder[MIRRORED];
    const mirrored = /* @__PURE__ */ new Map();
    let running = Promise.resolve();
    const refresh = () => running = running.then(() => sync(mc, mirrored)).catch(() => {
    });
    mc.addEventListener?.("toolchange", () => void refresh());
    const first = refresh();
    Object.defineProperty(mc, MIRRORED, { value: first });
    return first;
  }
  async function sync(mc, mirrored) {
    const list = await mc.getTools();
    const seen = /* @__PURE__ */ new Set();
    for (const t of list ?? []) {
      if (!t || typeof t.name !== "string" || t.window !== void 0 && typeof window !== "undefined" && t.window !== window) continue;
      if (ownToolNames.has(t.name)) continue;
      seen.add(t.name);
      const key = JSON.stringify([t.title, t.description, t.inputSchema, t.annotations]);
      const had = mirrored.get(t.name);
      if (had && had.key === key) {
        had.tool.current = t;
        continue;
      }
      if (had) {
        registrations.remove(had.reg);
        mirrored.delete(t.name);
      }
      if (registrations.has(t.name)) continue;
      const tool = { current: t };
      const reg = registration(mc, t, tool);
      registrations.add(reg);
      mirrored.set(t.name, { key, reg, tool });
    }
    for (const [name, m] of mirrored) {
      if (!seen.has(name)) {
        registrations.remove(m.reg);
        mirrored.delete(name);
      }
    }
  }
  function registration(mc, t, tool) {
    const annotations = {};
    for (const h of HINTS) if (typeof t.annotations?.[h] === "boolean") annotations[h] = t.annotations[h];
    return {
      name: t.name,
      title: t.title ? t.title : void 0,
      description: t.description,
      inputSchema: t.inputSchema === void 0 || t.inputSchema === null ? void 0 : JSON.stringify(t.inputSchema),
      execute: (input, options) => executeNative(mc, tool.current, input, options?.signal),
      readOnlyHint: annotations.readOnlyHint === true,
      untrustedContentHint: annotations.untrustedContentHint === true,
      annotations: Object.keys(annotations).length ? annotations : void 0,
      exposedTo: [],
      source: "native"
    };
  }
  async function executeNative(mc, t, input, signal) {
    const form = formOf(t.name);
    const watch = form ? watchSubmission(form) : void 0;
    try {
      let text;
      try {
        text = await mc.executeTool(t, input ?? {}, { signal });
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        const e = err;
        throw new Error(`the browser's executeTool failed: ${e?.name ?? "Error"}: ${e?.message ?? String(err)}`);
      }
      if (text === null || text === void 0) {
        if (watch) {
          const w = await Promise.race([watch.submitted, nextTask().then(() => null)]);
          if (w) return await submissionResult(w);
        }
        return null;
      }
      if (text === "undefined") return null;
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    } finally {
      watch?.cancel();
    }
  }
  function formOf(name) {
    if (typeof document === "undefined") return void 0;
    for (const f of Array.from(document.querySelectorAll("form[toolname]"))) if (f.getAttribute("toolname")?.trim() === name) return f;
    return void 0;
  }

  // src/webmcp/install.ts
  var ownTools = pageShared("ownTools.v1", () => /* @__PURE__ */ new WeakSet());
  var ready = Promise.resolve();
  var OBSERVED = /* @__PURE__ */ Symbol.for("pedelec.webmcp.observed");
  function holders() {
    return {
      doc: typeof document !== "undefined" ? document : void 0,
      nav: typeof navigator !== "undefined" ? navigator : void 0
    };
  }
  function installModelContext() {
    const { doc, nav } = holders();
    if (!doc) return void 0;
    const existing = doc.modelContext ?? nav?.modelContext;
    let mc;
    if (existing && isPolyfill(existing)) {
      mc = existing;
      startDeclarativeTools();
    } else if (existing && typeof existing.registerTool === "function") {
      observe(existing);
      mc = existing;
      if (canEnumerate(existing)) ready = mirrorNativeTools(existing);
      else startDeclarativeTools();
    } else {
      mc = new ModelContextPolyfill();
      startDeclarativeTools();
    }
    define(doc, mc);
    if (nav) define(nav, mc);
    return mc;
  }
  function define(holder, mc) {
    if (holder.modelContext === mc) return;
    try {
      Object.defineProperty(holder, "modelContext", { value: mc, configurable: true, enumerable: true });
    } catch {
    }
  }
  function observe(native) {
    const marked = native;
    if (marked[OBSERVED]) return;
    const original = native.registerTool;
    const wrapped = function(tool, options) {
      const result = original.call(this ?? native, tool, options);
      if (tool && typeof tool === "object" && !ownTools.has(tool)) record(tool, options, result);
      return result;
    };
    try {
      Object.defineProperty(native, "registerTool", { value: wrapped, configurable: true, writable: true });
      Object.defineProperty(native, OBSERVED, { value: true });
    } catch {
    }
  }
  function record(tool, options, result) {
    let reg;
    try {
      if (registrations.has(tool.name)) return;
      reg = checkRegistration(tool, options);
    } catch {
      return;
    }
    const signal = options?.signal;
    if (signal?.aborted) return;
    registrations.add(reg);
    signal?.addEventListener("abort", () => registrations.remove(reg), { once: true });
    Promise.resolve(result).catch(() => registrations.remove(reg));
  }

  // src/webmcp-classic.ts
  installModelContext();
})();
