// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.
var __defProp = Object.defineProperty;
var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

// src/errors.ts
var ERROR_CODES = [
  "INVALID_INPUT",
  "UNKNOWN_METHOD",
  "MESSAGE_TOO_LARGE",
  "ORIGIN_NOT_ALLOWED",
  "HOST_NOT_ALLOWED",
  "SESSION_BUSY",
  "SESSION_ENDED",
  "THREAD_NOT_FOUND",
  "THREAD_ACCESS_DENIED",
  "PROVIDER_NOT_FOUND",
  "PROVIDER_UNAVAILABLE",
  "PROVIDER_ERROR",
  "PROVIDER_TIMEOUT",
  "MODEL_REQUIRED",
  "MODEL_NOT_FOUND",
  "ENDPOINT_UNREACHABLE",
  "AUTH_FAILED",
  "BAD_MODEL_RESPONSE",
  "STEP_LIMIT_REACHED",
  "TOOL_NOT_FOUND",
  "TOOL_ARGS_INVALID",
  "TOOL_TIMEOUT",
  "TOOL_REQUEST_NOT_PENDING",
  "TOO_MANY_PENDING_CALLS",
  "NO_ACTIVE_TURN",
  "TOOL_HANDLER_NOT_FOUND",
  "TOOL_HANDLER_ERROR",
  "TOOL_RESULT_INVALID",
  "SUBMIT_TOOL_RESULT_FAILED",
  "CORE_UNREACHABLE",
  "NOT_IN_SESSION",
  "INTERNAL"
];
var PedelecError = class _PedelecError extends Error {
  constructor(code, message, details) {
    super(message);
    __publicField(this, "code");
    __publicField(this, "details");
    this.name = "PedelecError";
    this.code = code;
    if (details !== void 0) this.details = details;
  }
  /** Builds a PedelecError from a wire error object (or anything else). */
  static from(value) {
    if (value instanceof _PedelecError) return value;
    if (isErrorData(value)) return new _PedelecError(value.code, value.message, value.details);
    if (value instanceof Error) return new _PedelecError("INTERNAL", value.message);
    return new _PedelecError("INTERNAL", String(value));
  }
  /** The plain JSON form, as it travels on the wire. */
  toJSON() {
    const out = { code: this.code, message: this.message };
    if (this.details !== void 0) out.details = this.details;
    return out;
  }
};
function isErrorData(value) {
  return typeof value === "object" && value !== null && typeof value.code === "string" && typeof value.message === "string";
}
function toolErrorResult(code, message, details) {
  const error = { code, message };
  if (details !== void 0) error.details = details;
  return { error };
}

// src/client/connection.ts
var MAX_EARLY_EVENTS = 1e3;
var OPEN = 1;
var Connection = class {
  constructor(url, factory) {
    __publicField(this, "url", url);
    __publicField(this, "factory", factory);
    __publicField(this, "socket", null);
    __publicField(this, "opening", null);
    __publicField(this, "nextId", 1);
    __publicField(this, "pending", /* @__PURE__ */ new Map());
    __publicField(this, "sinks", /* @__PURE__ */ new Map());
    __publicField(this, "early", /* @__PURE__ */ new Map());
    __publicField(this, "closeListeners", /* @__PURE__ */ new Set());
  }
  /** Sends one request and resolves with its result, or rejects with its error. */
  async request(method, params) {
    const socket = await this.open();
    const id = this.nextId++;
    const frame = { type: "request", id, method, params };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      try {
        socket.send(JSON.stringify(frame));
      } catch (err) {
        this.pending.delete(id);
        reject(new PedelecError("CORE_UNREACHABLE", `Could not send ${method} to Pedelec Core: ${String(err)}`));
      }
    });
  }
  /** Routes a session's events to sink, first replaying any that came early. */
  subscribe(sessionId, sink) {
    this.sinks.set(sessionId, sink);
    const waiting = this.early.get(sessionId);
    this.early.delete(sessionId);
    for (const ev of waiting ?? []) sink(ev);
    return () => {
      if (this.sinks.get(sessionId) === sink) this.sinks.delete(sessionId);
    };
  }
  /** Called with the reason whenever an open socket closes. */
  onClose(listener) {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }
  close() {
    this.socket?.close(1e3, "closed by the page");
  }
  open() {
    if (this.socket && this.socket.readyState === OPEN) return Promise.resolve(this.socket);
    if (this.opening) return this.opening;
    this.opening = new Promise((resolve, reject) => {
      let socket;
      try {
        socket = this.factory(this.url);
      } catch (err) {
        this.opening = null;
        reject(new PedelecError("CORE_UNREACHABLE", `Could not open a WebSocket to ${this.url}: ${String(err)}`));
        return;
      }
      let opened = false;
      socket.onopen = () => {
        opened = true;
        this.socket = socket;
        this.opening = null;
        resolve(socket);
      };
      socket.onmessage = (ev) => this.receive(ev.data);
      socket.onerror = () => {
      };
      socket.onclose = (ev) => {
        const err = closeError(this.url, ev.code, ev.reason, opened);
        if (!opened) {
          this.opening = null;
          reject(err);
          return;
        }
        if (this.socket === socket) this.socket = null;
        this.failPending(err);
        for (const listener of [...this.closeListeners]) listener(err);
      };
    });
    return this.opening;
  }
  failPending(err) {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(err);
  }
  receive(data) {
    if (typeof data !== "string") return;
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (frame.type === "response") {
      const p = this.pending.get(frame.id);
      if (!p) return;
      this.pending.delete(frame.id);
      if (frame.ok) p.resolve(frame.result ?? {});
      else p.reject(PedelecError.from(isErrorData(frame.error) ? frame.error : { code: "INTERNAL", message: `${p.method} failed` }));
      return;
    }
    if (frame.type === "event" && typeof frame.sessionId === "string") {
      const sink = this.sinks.get(frame.sessionId);
      if (sink) return sink(frame);
      const queue = this.early.get(frame.sessionId) ?? [];
      if (queue.length < MAX_EARLY_EVENTS) queue.push(frame);
      this.early.set(frame.sessionId, queue);
    }
  }
};
function closeError(url, code, reason, opened) {
  if (reason) {
    try {
      const parsed = JSON.parse(reason);
      if (isErrorData(parsed)) return PedelecError.from(parsed);
    } catch {
    }
  }
  if (code === 1009) return new PedelecError("MESSAGE_TOO_LARGE", `Pedelec Core closed the connection: a message was too large${reason ? ` (${reason})` : ""}`);
  if (!opened) {
    const origin = typeof location !== "undefined" ? location.origin : "this page's origin";
    return new PedelecError(
      "CORE_UNREACHABLE",
      `Could not connect to Pedelec Core at ${url}${reason ? `: ${reason}` : ""}. Is \`pedelec serve\` running, and is ${origin} allowed (pedelec serve --allow-origin ${origin})?`,
      { url, closeCode: code }
    );
  }
  return new PedelecError("CORE_UNREACHABLE", `The connection to Pedelec Core at ${url} closed (code ${code}${reason ? `: ${reason}` : ""})`, { url, closeCode: code });
}

// src/client/url.ts
var DEFAULT_URL = "ws://127.0.0.1:7077/ws";
function resolveUrl(url, moduleUrl) {
  if (url === void 0 || url === "") return defaultUrl(moduleUrl);
  let parsed;
  try {
    parsed = new URL(url, typeof location !== "undefined" ? location.href : void 0);
  } catch {
    throw new TypeError(`Pedelec: ${JSON.stringify(url)} is not a URL; pass something like ${DEFAULT_URL}`);
  }
  if (parsed.protocol === "http:") parsed.protocol = "ws:";
  else if (parsed.protocol === "https:") parsed.protocol = "wss:";
  else if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    throw new TypeError(`Pedelec: ${JSON.stringify(url)} must be a ws://, wss://, http:// or https:// URL`);
  }
  if (parsed.pathname === "" || parsed.pathname === "/") parsed.pathname = "/ws";
  parsed.hash = "";
  return parsed.toString();
}
function defaultUrl(moduleUrl) {
  if (moduleUrl) {
    try {
      const u = new URL(moduleUrl);
      if ((u.protocol === "http:" || u.protocol === "https:") && /\/sdk\/pedelec(\.min)?\.js$/.test(u.pathname)) {
        return `${u.protocol === "https:" ? "wss:" : "ws:"}//${u.host}/ws`;
      }
    } catch {
    }
  }
  return DEFAULT_URL;
}

// src/json-safety.ts
var IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
function childPath(path, key) {
  if (typeof key === "number") return `${path}[${key}]`;
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
function describe(value) {
  if (typeof Node !== "undefined" && value instanceof Node) {
    return `a DOM node (${value.nodeName}); return the data you need from it (text, ids, attributes) instead`;
  }
  if (value instanceof Date) return "a Date; convert it explicitly, for example date.toISOString()";
  if (value instanceof Map) return "a Map; convert it explicitly, for example Object.fromEntries(map)";
  if (value instanceof Set) return "a Set; convert it explicitly, for example Array.from(set)";
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    return "binary data (ArrayBuffer / typed array); convert it explicitly, for example Array.from(bytes)";
  }
  if (value instanceof RegExp) return "a RegExp; return its source string instead";
  if (value instanceof Error) return `an Error (${value.message}); return {error: {code, message}} or throw it`;
  if (typeof Promise !== "undefined" && value instanceof Promise) {
    return "a Promise nested inside the result; await it before returning";
  }
  if (typeof Window !== "undefined" && value instanceof Window) return "a window object";
  return null;
}
function checkJson(value) {
  const ancestors = [];
  let problem = null;
  const fail = (path, text) => {
    problem ?? (problem = { path, problem: text });
    return void 0;
  };
  const walk = (v, path) => {
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        return Number.isFinite(v) ? v : fail(path, `${String(v)}, which JSON cannot represent; return a finite number or null`);
      case "bigint":
        return fail(path, "a BigInt; convert it explicitly, for example String(n) or Number(n)");
      case "undefined":
        return fail(path, "undefined; return null or leave the property out");
      case "function":
        return fail(path, `a function${v.name ? ` (${v.name})` : ""}; functions never leave the page`);
      case "symbol":
        return fail(path, "a symbol; return a string instead");
    }
    if (v === null) return null;
    const obj = v;
    if (ancestors.includes(obj)) {
      return fail(path, "a cycle: this value contains itself; return a copy without the back reference");
    }
    if (Array.isArray(obj)) {
      ancestors.push(obj);
      const out2 = [];
      for (let i = 0; i < obj.length && !problem; i++) {
        const item = obj[i];
        if (item === void 0) {
          fail(childPath(path, i), "undefined inside an array (JSON would turn it into null); use null");
          break;
        }
        const c = walk(item, childPath(path, i));
        if (c !== void 0) out2.push(c);
      }
      ancestors.pop();
      return problem ? void 0 : out2;
    }
    const rich = describe(obj);
    if (rich) return fail(path, rich);
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      const name = proto?.constructor?.name || "an unknown class";
      return fail(
        path,
        `an instance of ${name}; class instances can hide state, so return a plain object with the fields you mean`
      );
    }
    ancestors.push(obj);
    const out = {};
    for (const key of Object.keys(obj)) {
      if (problem) break;
      let item;
      try {
        item = obj[key];
      } catch (err) {
        fail(childPath(path, key), `a getter that threw: ${err instanceof Error ? err.message : String(err)}`);
        break;
      }
      if (item === void 0) continue;
      const c = walk(item, childPath(path, key));
      if (c !== void 0) out[key] = c;
    }
    ancestors.pop();
    return problem ? void 0 : out;
  };
  const clean = walk(value, "$");
  if (problem) return { ok: false, problem };
  return { ok: true, value: clean };
}

// src/validate.ts
var TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_.-]*$/;
var isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
function jsonType(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  switch (typeof v) {
    case "string":
      return `the string ${JSON.stringify(v)}`;
    case "number":
      return `the number ${String(v)}`;
    case "boolean":
      return `${String(v)} (a boolean)`;
    default:
      return "an object";
  }
}
var TOOL_FIELDS = /* @__PURE__ */ new Set(["name", "description", "argsSchema", "timeoutMs", "handler"]);
function validateManifest(manifest) {
  const problems = [];
  const add = (path, message) => problems.push({ path, message });
  if (!isObject(manifest)) {
    add("", `skills must be an object with guidance and tools, got ${jsonType(manifest)}`);
    return problems;
  }
  if (typeof manifest.guidance !== "string") {
    add("guidance", manifest.guidance === void 0 ? "is required: a string of operating guidance for the agent" : `must be a string, got ${jsonType(manifest.guidance)}`);
  }
  const tools = manifest.tools;
  if (!Array.isArray(tools)) {
    add("tools", tools === void 0 ? "is required: an array of tool definitions" : `must be an array of tool definitions, got ${jsonType(tools)}`);
    return problems;
  }
  const seen = /* @__PURE__ */ new Map();
  tools.forEach((tool, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) {
      add(at, `must be an object, got ${jsonType(tool)}`);
      return;
    }
    checkName(tool, at, i, seen, add);
    checkDescription(tool, at, add);
    checkTimeout(tool, at, add);
    if ("input" in tool && !("argsSchema" in tool)) {
      add(`${at}.input`, 'the legacy "input" shorthand is not supported: write argsSchema: {"type":"object","properties":{...},"required":[...]} instead');
    } else if ("input" in tool) {
      add(`${at}.input`, 'the legacy "input" shorthand is not supported: remove it and keep argsSchema');
    }
    if (!("argsSchema" in tool)) {
      if (!("input" in tool)) add(`${at}.argsSchema`, 'is required: an object schema such as {"type":"object","properties":{},"required":[]}');
    } else {
      checkRoot(tool.argsSchema, `${at}.argsSchema`, add);
    }
    for (const key of Object.keys(tool)) {
      if (!TOOL_FIELDS.has(key) && key !== "input") add(`${at}.${key}`, `unknown field "${key}": a tool has name, description, argsSchema and timeoutMs`);
    }
  });
  return problems;
}
function checkName(tool, at, i, seen, add) {
  const name = tool.name;
  if (name === void 0) return add(`${at}.name`, "is required");
  if (typeof name !== "string") return add(`${at}.name`, `must be a string, got ${jsonType(name)}`);
  if (!TOOL_NAME_PATTERN.test(name)) {
    return add(`${at}.name`, `${JSON.stringify(name)} does not match ^[a-zA-Z][a-zA-Z0-9_.-]*$: start with an ASCII letter, then use letters, digits, _, . or -`);
  }
  const first = seen.get(name);
  if (first !== void 0) return add(`${at}.name`, `${JSON.stringify(name)} is already used by tools[${first}]: tool names must be unique`);
  seen.set(name, i);
}
function checkDescription(tool, at, add) {
  const d = tool.description;
  if (d === void 0) return add(`${at}.description`, "is required: say what the tool does, what it reads or changes, and its constraints");
  if (typeof d !== "string") return add(`${at}.description`, `must be a string, got ${jsonType(d)}`);
  if (d.trim() === "") add(`${at}.description`, "must not be empty: say what the tool does, what it reads or changes, and its constraints");
}
function checkTimeout(tool, at, add) {
  if (!("timeoutMs" in tool)) return;
  const t = tool.timeoutMs;
  if (typeof t !== "number" || !Number.isInteger(t) || t <= 0) {
    add(`${at}.timeoutMs`, `must be a positive integer (milliseconds), got ${jsonType(t)}`);
  }
}
function checkRoot(schema, at, add) {
  if (!isObject(schema)) return add(at, `must be an object schema ({"type":"object",...}), got ${jsonType(schema)}`);
  if (schema.type !== "object") {
    return add(`${at}.type`, schema.type === void 0 ? 'is required at the root: the root must be {"type":"object",...}' : `must be "object" at the root, got ${jsonType(schema.type)}`);
  }
  checkNode(schema, at, add);
}
var COMMON = ["description", "default", "examples"];
var BY_TYPE = {
  string: ["enum", "minLength", "maxLength", "pattern"],
  number: ["enum", "minimum", "maximum"],
  integer: ["enum", "minimum", "maximum"],
  boolean: ["enum"],
  array: ["items", "minItems", "maxItems", "uniqueItems"],
  object: ["properties", "required"]
};
var UNSUPPORTED = /* @__PURE__ */ new Set([
  "$ref",
  "$defs",
  "definitions",
  "additionalProperties",
  "format",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "allOf",
  "anyOf",
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "const"
]);
function checkNode(node, at, add) {
  if (!isObject(node)) return add(at, `must be a schema object, got ${jsonType(node)}`);
  if ("oneOf" in node) {
    const alts = node.oneOf;
    if (!Array.isArray(alts)) add(`${at}.oneOf`, `must be an array of schemas, got ${jsonType(alts)}`);
    else alts.forEach((alt, i) => checkNode(alt, `${at}.oneOf[${i}]`, add));
    for (const key of Object.keys(node)) {
      if (key !== "oneOf" && key !== "type" && !COMMON.includes(key)) unsupported(key, at, add);
    }
    return;
  }
  const type = node.type;
  if (type === void 0) return add(`${at}.type`, 'is required: one of "string", "number", "integer", "boolean", "array", "object" (or use oneOf)');
  if (typeof type !== "string" || !(type in BY_TYPE)) {
    return add(`${at}.type`, `must be one of "string", "number", "integer", "boolean", "array", "object", got ${jsonType(type)}`);
  }
  const allowed = BY_TYPE[type] ?? [];
  for (const key of Object.keys(node)) {
    if (key === "type" || COMMON.includes(key) || allowed.includes(key)) continue;
    unsupported(key, at, add, type);
  }
  checkKeywords(node, type, at, add);
}
function unsupported(key, at, add, type) {
  if (UNSUPPORTED.has(key)) add(`${at}.${key}`, `"${key}" is not supported by Pedelec's schema subset`);
  else if (type) add(`${at}.${key}`, `"${key}" is not a supported keyword for type "${type}"`);
  else add(`${at}.${key}`, `"${key}" is not supported next to oneOf`);
}
function nonNegInt(v) {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}
function checkKeywords(node, type, at, add) {
  if (node.description !== void 0 && typeof node.description !== "string") {
    add(`${at}.description`, `must be a string, got ${jsonType(node.description)}`);
  }
  if (node.examples !== void 0 && !Array.isArray(node.examples)) add(`${at}.examples`, `must be an array, got ${jsonType(node.examples)}`);
  if (node.enum !== void 0 && !Array.isArray(node.enum)) add(`${at}.enum`, `must be an array, got ${jsonType(node.enum)}`);
  for (const k of ["minLength", "maxLength", "minItems", "maxItems"]) {
    if (node[k] !== void 0 && !nonNegInt(node[k])) add(`${at}.${k}`, `must be a non-negative integer, got ${jsonType(node[k])}`);
  }
  for (const k of ["minimum", "maximum"]) {
    if (node[k] !== void 0 && typeof node[k] !== "number") add(`${at}.${k}`, `must be a number, got ${jsonType(node[k])}`);
  }
  if (node.uniqueItems !== void 0 && typeof node.uniqueItems !== "boolean") add(`${at}.uniqueItems`, `must be a boolean, got ${jsonType(node.uniqueItems)}`);
  if (node.pattern !== void 0) {
    if (typeof node.pattern !== "string") add(`${at}.pattern`, `must be a string, got ${jsonType(node.pattern)}`);
    else {
      try {
        new RegExp(node.pattern, "u");
      } catch {
        add(`${at}.pattern`, `is not a valid regular expression: ${JSON.stringify(node.pattern)}`);
      }
    }
  }
  if (type === "array" && node.items !== void 0) checkNode(node.items, `${at}.items`, add);
  if (type === "object") {
    const props = node.properties;
    if (props !== void 0 && !isObject(props)) add(`${at}.properties`, `must be an object mapping names to schemas, got ${jsonType(props)}`);
    if (isObject(props)) for (const [name, sub] of Object.entries(props)) checkNode(sub, `${at}.properties.${name}`, add);
    const req = node.required;
    if (req !== void 0) {
      if (!Array.isArray(req)) add(`${at}.required`, `must be an array of property names, got ${jsonType(req)}`);
      else
        req.forEach((name, i) => {
          if (typeof name !== "string") add(`${at}.required[${i}]`, `must be a string, got ${jsonType(name)}`);
          else if (!isObject(props) || !(name in props)) add(`${at}.required[${i}]`, `names "${name}", which is not defined in properties`);
        });
    }
  }
}
function plainJsonProblem(value) {
  const checked = checkJson(value);
  if (checked.ok) return null;
  const path = checked.problem.path.replace(/^\$\.?/, "");
  return { path, message: `is ${checked.problem.problem}: the manifest must be plain JSON` };
}

// src/manifest.ts
function stripHandlers(skills) {
  if (typeof skills !== "object" || skills === null || Array.isArray(skills)) return skills;
  const { tools, ...rest } = skills;
  if (!Array.isArray(tools)) return skills;
  return {
    ...rest,
    tools: tools.map((tool) => {
      if (typeof tool !== "object" || tool === null || Array.isArray(tool)) return tool;
      const { handler: _handler, ...def } = tool;
      return def;
    })
  };
}
function toManifest(skills) {
  const stripped = stripHandlers(skills);
  const problem = plainJsonProblem(stripped);
  if (problem) throw invalidInput([problem]);
  return JSON.parse(JSON.stringify(stripped));
}
function checkedManifest(skills) {
  const stripped = stripHandlers(skills);
  const jsonProblem = plainJsonProblem(stripped);
  if (jsonProblem) throw invalidInput([jsonProblem]);
  const tools = skills?.tools;
  const problems = [];
  if (Array.isArray(tools)) {
    tools.forEach((tool, i) => {
      const handler = tool?.handler;
      if (handler !== void 0 && typeof handler !== "function") {
        problems.push({ path: `tools[${i}].handler`, message: "must be a function (it stays in the page)" });
      }
    });
  }
  const clean = JSON.parse(JSON.stringify(stripped));
  problems.unshift(...validateManifest(clean));
  if (problems.length > 0) throw invalidInput(problems);
  return clean;
}
function invalidInput(problems) {
  const first = problems[0];
  const where = (p) => p.path ? `${p.path}: ${p.message}` : p.message;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  return new PedelecError(
    "INVALID_INPUT",
    `Invalid skills: ${first ? where(first) : "unknown problem"}${more}`,
    { problems }
  );
}

// src/handlers.ts
var HandlerRegistry = class {
  constructor(tools = []) {
    __publicField(this, "named", /* @__PURE__ */ new Map());
    __publicField(this, "inline", /* @__PURE__ */ new Map());
    __publicField(this, "fallback", null);
    for (const tool of tools) {
      if (typeof tool?.handler === "function") this.inline.set(tool.name, tool.handler);
    }
  }
  /** Registers a named handler, replacing any earlier one for the name. */
  setNamed(name, handler) {
    this.named.set(name, handler);
    return () => {
      if (this.named.get(name) === handler) this.named.delete(name);
    };
  }
  /** Sets the one generic fallback, replacing the previous one. */
  setFallback(handler) {
    this.fallback = handler;
    return () => {
      if (this.fallback === handler) this.fallback = null;
    };
  }
  select(tool) {
    const named = this.named.get(tool);
    if (named) return { source: "named", run: named };
    const inline = this.inline.get(tool);
    if (inline) return { source: "inline", run: inline };
    const fallback = this.fallback;
    if (fallback) return { source: "fallback", run: (args, ctx) => fallback(tool, args, ctx) };
    return { source: "none" };
  }
  /**
   * Runs the selected handler and turns whatever happens into a result.
   * It never throws: a throw, a rejected promise or a non-JSON value all
   * become error results, so the agent always gets an answer.
   */
  async run(tool, args, ctx) {
    const selected = this.select(tool);
    if (selected.source === "none") {
      const message = `No handler is registered in the page for tool "${tool}". Register one with session.onTool("${tool}", handler), give its definition an inline handler, or add a fallback with session.onTool((tool, args, ctx) => ...).`;
      return sdkFailure("none", "TOOL_HANDLER_NOT_FOUND", message, { tool });
    }
    let value;
    try {
      value = await selected.run(args, ctx);
    } catch (err) {
      const message = err instanceof Error ? err.message : typeof err === "string" ? err : safeString(err);
      return sdkFailure(selected.source, "TOOL_HANDLER_ERROR", message || `The handler for ${tool} threw.`, void 0);
    }
    const checked = checkJson(value);
    if (!checked.ok) {
      const { path, problem } = checked.problem;
      const message = `The handler for ${tool} returned a value that is not plain JSON: ${path} is ${problem}.`;
      return sdkFailure(selected.source, "TOOL_RESULT_INVALID", message, { path });
    }
    return { result: checked.value, source: selected.source };
  }
};
function sdkFailure(source, code, message, details) {
  const result = toolErrorResult(code, message, details);
  return { result, source, failure: { code, message } };
}
function safeString(value) {
  try {
    return String(value);
  } catch {
    return "a value that cannot be printed";
  }
}

// src/listeners.ts
var Emitter = class {
  constructor() {
    __publicField(this, "listeners", /* @__PURE__ */ new Set());
  }
  add(listener) {
    if (typeof listener !== "function") throw new TypeError("Pedelec: a listener must be a function");
    const entry = (ev) => listener(ev);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }
  emit(event) {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        reportListenerError(err);
      }
    }
  }
  get size() {
    return this.listeners.size;
  }
};
function reportListenerError(err) {
  setTimeout(() => {
    throw err;
  }, 0);
}

// src/seq.ts
var SeqGate = class {
  constructor(last = 0) {
    __publicField(this, "last", last);
  }
  /** True when the event is new; it then becomes the last one seen. */
  admit(seq) {
    if (typeof seq !== "number" || !Number.isFinite(seq) || seq <= this.last) return false;
    this.last = seq;
    return true;
  }
  get lastSeq() {
    return this.last;
  }
  /** Moves forward without handling (after a resume told us the current seq). */
  advanceTo(seq) {
    if (seq > this.last) this.last = seq;
  }
};

// src/session.ts
var STATUSES = ["idle", "running", "waiting_tool_result", "ended", "error"];
var PedelecSession = class {
  /** @internal Sessions come from Pedelec.createSession / resumeSession. */
  constructor(init) {
    /** Core's id for this session; keep it to resumeSession() after a reload. */
    __publicField(this, "sessionId");
    /** The provider running the agent (codex, claude, openai, script, ...). */
    __publicField(this, "provider");
    /** The model, when the provider has one. */
    __publicField(this, "model");
    /** The tool names Core registered for this session. */
    __publicField(this, "tools");
    /** Whether Core ends the session when this page disconnects. */
    __publicField(this, "autoEndOnDisconnect");
    __publicField(this, "connection");
    __publicField(this, "registry");
    __publicField(this, "seq");
    __publicField(this, "status");
    __publicField(this, "waitingOn", []);
    __publicField(this, "turn", null);
    __publicField(this, "earlyDone", /* @__PURE__ */ new Map());
    __publicField(this, "calls", /* @__PURE__ */ new Map());
    __publicField(this, "ended", false);
    __publicField(this, "detached", false);
    __publicField(this, "unsubscribe");
    __publicField(this, "chat", new Emitter());
    __publicField(this, "statusEmitter", new Emitter());
    __publicField(this, "errors", new Emitter());
    __publicField(this, "endedEmitter", new Emitter());
    const { info } = init;
    this.sessionId = info.sessionId;
    this.provider = info.provider;
    this.model = info.model || void 0;
    this.tools = Object.freeze([...info.tools ?? []]);
    this.autoEndOnDisconnect = info.autoEndOnDisconnect !== false;
    this.connection = init.connection;
    this.registry = new HandlerRegistry(init.tools);
    this.seq = new SeqGate(info.seq ?? 0);
    this.status = STATUSES.includes(info.status) ? info.status : "idle";
    if (this.status === "ended") this.ended = true;
    this.unsubscribe = this.connection.subscribe(this.sessionId, (ev) => this.receive(ev));
  }
  // ---- turns ----
  /**
   * Sends the user's message. Resolves when the turn is over (its done
   * event), with the assistant's whole message; rejects with the turn's
   * error, or SESSION_ENDED when the session ends first. SESSION_BUSY when
   * a turn is already running: one turn at a time.
   */
  sendText(text) {
    if (typeof text !== "string") {
      return Promise.reject(new PedelecError("INVALID_INPUT", "sendText(text): text must be a string"));
    }
    return this.startTurn("send_text", { sessionId: this.sessionId, text }, false);
  }
  /** Warms the provider up with a turn whose chat is not delivered. */
  prepare() {
    return this.startTurn("prepare", { sessionId: this.sessionId }, true);
  }
  /** Ends the session: Core stops its provider and fails its pending calls. Safe to call twice. */
  async end() {
    if (this.ended) return;
    let failure = null;
    try {
      await this.connection.request("end_session", { sessionId: this.sessionId });
    } catch (err) {
      const e = PedelecError.from(err);
      if (e.code !== "THREAD_NOT_FOUND" && e.code !== "SESSION_ENDED") failure = e;
    }
    this.markEnded("end_session", "sdk");
    if (failure) throw failure;
  }
  /** The current status: idle, running, waiting_tool_result, ended or error. */
  getStatus() {
    return this.status;
  }
  /** The calls the agent waits on right now (while waiting_tool_result), oldest first. */
  getWaitingOn() {
    return this.waitingOn.map((p) => ({ ...p }));
  }
  // ---- listeners ----
  /** Streams the assistant's text, one delta at a time. */
  onChat(listener) {
    return this.chat.add(listener);
  }
  /** Status changes, deduplicated: {status, previousStatus, source, waitingOn}. */
  onStatus(listener) {
    return this.statusEmitter.add(listener);
  }
  /**
   * Errors that belong to no promise: Core's error events, a result Core
   * refused (SUBMIT_TOOL_RESULT_FAILED), a handler that threw or returned
   * non-JSON, a missing handler, a lost connection.
   */
  onError(listener) {
    return this.errors.add(listener);
  }
  /** Called once when the session ends, with the reason. */
  onEnded(listener) {
    return this.endedEmitter.add(listener);
  }
  onTool(nameOrFallback, handler) {
    if (typeof nameOrFallback === "function") return this.registry.setFallback(nameOrFallback);
    if (typeof nameOrFallback !== "string" || typeof handler !== "function") {
      throw new TypeError("Pedelec: use session.onTool(name, handler) or session.onTool((tool, args, ctx) => ...)");
    }
    return this.registry.setNamed(nameOrFallback, handler);
  }
  // ---- internals ----
  async startTurn(method, params, prepare) {
    if (this.ended) throw new PedelecError("SESSION_ENDED", `Session ${this.sessionId} has ended`);
    if (this.turn) {
      throw new PedelecError("SESSION_BUSY", "A turn is already running in this session; wait for it to finish (its sendText promise settles) before sending another", { turnId: this.turn.turnId });
    }
    let resolve;
    let reject;
    const done = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const turn = { turnId: null, startedAt: 0, prepare, text: "", resolve, reject };
    this.turn = turn;
    const before = this.status;
    this.setStatus("running", "sdk", []);
    try {
      await this.reattach();
      const started = await this.connection.request(method, params);
      turn.turnId = started.turnId;
      turn.startedAt = started.startedAt;
    } catch (err) {
      const e = PedelecError.from(err);
      if (this.turn === turn) this.turn = null;
      if (e.code === "SESSION_ENDED" || e.code === "THREAD_NOT_FOUND") this.markEnded("end_session", "sdk");
      else if (this.status === "running" && !this.ended) this.setStatus(before, "sdk", this.waitingOn);
      throw e;
    }
    const early = turn.turnId ? this.earlyDone.get(turn.turnId) : void 0;
    if (early && turn.turnId) {
      this.earlyDone.delete(turn.turnId);
      this.finishTurn(turn, early);
    }
    return done;
  }
  finishTurn(turn, data) {
    if (this.turn === turn) this.turn = null;
    if (data.ok) {
      turn.resolve({ turnId: turn.turnId ?? "", startedAt: turn.startedAt, text: turn.text });
    } else {
      turn.reject(PedelecError.from(data.error ?? { code: "PROVIDER_ERROR", message: "The turn failed" }));
    }
  }
  /** After a lost connection (autoEndOnDisconnect false), resume before the next request. */
  async reattach() {
    if (!this.detached) return;
    const info = await this.connection.request("resume_session", { sessionId: this.sessionId });
    this.detached = false;
    this.seq.advanceTo(info.seq ?? 0);
    if (info.status && info.status !== this.status) this.setStatus(info.status, "core", []);
  }
  /** @internal The connection to Core closed. */
  disconnected(err) {
    if (this.ended) return;
    this.errors.emit(err);
    if (this.autoEndOnDisconnect) {
      this.markEnded("disconnect", "sdk");
      return;
    }
    this.detached = true;
    const turn = this.turn;
    if (turn) {
      this.turn = null;
      turn.reject(err);
    }
  }
  receive(ev) {
    if (this.ended || !this.seq.admit(ev.seq)) return;
    switch (ev.event) {
      case "status_changed": {
        const d = ev.data;
        if (STATUSES.includes(d.status)) this.setStatus(d.status, "core", d.waitingOn ?? []);
        return;
      }
      case "chat_delta":
        return this.onDelta(ev.turnId, ev.data.text);
      case "tool_call":
        void this.dispatch(ev.turnId ?? "", ev.data);
        return;
      case "tool_call_settled":
        return this.settled(ev.data);
      case "error": {
        const d = ev.data;
        this.errors.emit(PedelecError.from(d.error));
        return;
      }
      case "done":
        return this.onDone(ev.turnId, ev.data);
      case "ended":
        return this.markEnded(ev.data?.reason ?? "ended", "core");
    }
  }
  onDelta(turnId, text) {
    const turn = this.turn;
    if (typeof text !== "string" || !turn) return;
    if (turn.turnId !== null && turnId && turn.turnId !== turnId) return;
    turn.text += text;
    if (turn.prepare) return;
    this.chat.emit({ turnId: turnId ?? turn.turnId ?? "", delta: text, text: turn.text });
  }
  onDone(turnId, data) {
    const turn = this.turn;
    if (turn && (turn.turnId === turnId || !turnId)) return this.finishTurn(turn, data ?? { ok: true });
    if (turn && turn.turnId === null && turnId) this.earlyDone.set(turnId, data);
  }
  setStatus(status, source, waitingOn) {
    if (this.ended && status !== "ended") return;
    this.waitingOn = status === "waiting_tool_result" ? waitingOn.map((p) => ({ ...p })) : [];
    if (status === this.status) return;
    const previousStatus = this.status;
    this.status = status;
    this.statusEmitter.emit({ status, previousStatus, source, waitingOn: this.getWaitingOn() });
  }
  markEnded(reason, source) {
    if (this.ended) return;
    this.setStatus("ended", source, []);
    this.ended = true;
    const ended = new PedelecError("SESSION_ENDED", `Session ${this.sessionId} ended (${reason})`, { reason });
    const turn = this.turn;
    this.turn = null;
    turn?.reject(ended);
    for (const [, call] of this.calls) abortCall(call, ended);
    this.calls.clear();
    this.unsubscribe();
    this.endedEmitter.emit({ reason });
  }
  settled(data) {
    const call = this.calls.get(data.toolRequestId);
    if (!call || data.outcome === "result") return;
    const reason = data.outcome === "timeout" ? new PedelecError("TOOL_TIMEOUT", `Core stopped waiting for ${data.tool}: its timeout passed`) : new PedelecError("SESSION_ENDED", `The call to ${data.tool} was settled by Core (${data.outcome})`);
    abortCall(call, reason);
  }
  async dispatch(turnId, data) {
    const { toolRequestId, tool } = data;
    if (this.calls.has(toolRequestId)) return;
    const controller = new AbortController();
    const eventReceivedAt = Date.now();
    const deadline = typeof data.deadline === "number" ? data.deadline : eventReceivedAt + (data.timeoutMs ?? 6e4);
    const call = { tool, controller, timer: void 0 };
    call.timer = setTimeout(
      () => controller.abort(new PedelecError("TOOL_TIMEOUT", `The deadline for ${tool} passed; Core no longer waits for its result`)),
      Math.max(0, deadline - Date.now())
    );
    this.calls.set(toolRequestId, call);
    if (this.status !== "waiting_tool_result") this.setStatus("waiting_tool_result", "sdk", [{ toolRequestId, tool }]);
    const ctx = {
      sessionId: this.sessionId,
      toolRequestId,
      tool,
      turnId,
      turnStartedAt: data.turnStartedAt,
      eventReceivedAt,
      deadline,
      timeoutMs: data.timeoutMs,
      redelivered: data.redelivered === true,
      signal: controller.signal
    };
    const outcome = await this.registry.run(tool, data.args, ctx);
    clearTimeout(call.timer);
    if (this.calls.get(toolRequestId) === call) this.calls.delete(toolRequestId);
    if (outcome.failure) {
      this.errors.emit(new PedelecError(outcome.failure.code, outcome.failure.message, { tool, toolRequestId }));
    }
    if (this.ended) return;
    await this.submit(toolRequestId, tool, outcome.result);
  }
  async submit(toolRequestId, tool, result) {
    try {
      await this.reattach();
      await this.connection.request("submit_tool_result", { sessionId: this.sessionId, toolRequestId, result });
    } catch (err) {
      const cause = PedelecError.from(err);
      if (cause.code === "MESSAGE_TOO_LARGE") {
        const message = `The result of ${tool} is larger than Core accepts; return less data (page through it, or summarize)`;
        this.errors.emit(new PedelecError("MESSAGE_TOO_LARGE", message, { tool, toolRequestId }));
        return this.submit(toolRequestId, tool, { error: { code: "MESSAGE_TOO_LARGE", message } });
      }
      if (this.ended) return;
      this.errors.emit(
        new PedelecError(
          "SUBMIT_TOOL_RESULT_FAILED",
          `Core refused the result of ${tool} (${toolRequestId}): ${cause.code}: ${cause.message}`,
          { tool, toolRequestId, cause: cause.toJSON() }
        )
      );
    }
  }
};
function abortCall(call, reason) {
  clearTimeout(call.timer);
  if (!call.controller.signal.aborted) call.controller.abort(reason);
}

// src/client.ts
function browserSocket(url) {
  if (typeof WebSocket === "undefined") {
    throw new PedelecError("CORE_UNREACHABLE", "This environment has no WebSocket; Pedelec's SDK runs in a browser");
  }
  return new WebSocket(url);
}
function thisModuleUrl() {
  try {
    return import.meta.url;
  } catch {
    return void 0;
  }
}
var Pedelec = class {
  constructor(options = {}) {
    /** Core's WebSocket URL this client talks to. */
    __publicField(this, "url");
    __publicField(this, "connection");
    __publicField(this, "sessions", /* @__PURE__ */ new Set());
    const opts = options;
    this.url = resolveUrl(opts.url, opts.moduleUrl ?? thisModuleUrl());
    this.connection = new Connection(this.url, opts.socketFactory ?? browserSocket);
    this.connection.onClose((err) => {
      for (const session of [...this.sessions]) session.disconnected(err);
    });
  }
  /** The providers Core knows, available or not (with the reason), and the default one. */
  async listProviders() {
    const result = await this.connection.request("list_providers", {});
    return { providers: result.providers ?? [], defaultProvider: result.defaultProvider ?? "" };
  }
  /**
   * Creates a session. The tool definitions are checked here first, and any
   * problem rejects with INVALID_INPUT (details.problems lists every one)
   * before anything is sent. Handlers stay in the page.
   */
  async createSession(options) {
    if (typeof options !== "object" || options === null) {
      throw new PedelecError("INVALID_INPUT", "createSession(options): options must be an object with skills");
    }
    const { provider, model, skills, autoEndOnDisconnect } = options;
    for (const [field, value] of [["provider", provider], ["model", model]]) {
      if (value !== void 0 && typeof value !== "string") {
        throw new PedelecError("INVALID_INPUT", `createSession: ${field} must be a string`, { problems: [{ path: field, message: "must be a string" }] });
      }
    }
    if (autoEndOnDisconnect !== void 0 && typeof autoEndOnDisconnect !== "boolean") {
      throw new PedelecError("INVALID_INPUT", "createSession: autoEndOnDisconnect must be a boolean", {
        problems: [{ path: "autoEndOnDisconnect", message: "must be a boolean" }]
      });
    }
    const manifest = checkedManifest(skills);
    const params = { skills: manifest };
    if (provider) params.provider = provider;
    if (model) params.model = model;
    if (autoEndOnDisconnect !== void 0) params.autoEndOnDisconnect = autoEndOnDisconnect;
    const info = await this.connection.request("create_session", params);
    return this.track(new PedelecSession({ connection: this.connection, info, tools: skills.tools }));
  }
  /**
   * Attaches to an existing session (after a reload, with
   * autoEndOnDisconnect: false). Pass the same tool definitions to restore
   * their inline handlers, or register named handlers right after this
   * resolves: calls still pending in Core are delivered again.
   */
  async resumeSession(sessionId, options = {}) {
    if (typeof sessionId !== "string" || sessionId === "") {
      throw new PedelecError("INVALID_INPUT", "resumeSession(sessionId): sessionId must be a non-empty string");
    }
    const info = await this.connection.request("resume_session", { sessionId });
    return this.track(new PedelecSession({ connection: this.connection, info, tools: options.tools ?? [] }));
  }
  /** Closes the connection; sessions with autoEndOnDisconnect end. */
  close() {
    this.connection.close();
  }
  track(session) {
    const s = session;
    this.sessions.add(s);
    session.onEnded(() => this.sessions.delete(s));
    return session;
  }
};

// src/define-tool.ts
function defineTool(definition) {
  return definition;
}
export {
  DEFAULT_URL,
  ERROR_CODES,
  Pedelec,
  PedelecError,
  defineTool,
  toManifest
};
