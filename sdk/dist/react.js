// @kaoruisaac/pedelec: the Pedelec browser SDK's React binding. Generated from sdk/src by `npm run build`; do not edit.
var __defProp = Object.defineProperty;
var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

// src/react/provider.ts
import { createElement, createContext, useContext, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { Pedelec } from "./pedelec.js";

// src/react/store.ts
import { PedelecError } from "./pedelec.js";
var CHAT_KEY = "pedelec.chat:";
var SessionStore = class {
  constructor() {
    __publicField(this, "state", { session: null, status: "none", error: null, messages: [], sending: false });
    __publicField(this, "listeners", /* @__PURE__ */ new Set());
    __publicField(this, "offs", []);
    __publicField(this, "ids", 0);
    __publicField(this, "subscribe", (fn) => {
      this.listeners.add(fn);
      return () => this.listeners.delete(fn);
    });
    __publicField(this, "snapshot", () => this.state);
  }
  starting() {
    this.set({ status: "starting", error: null });
  }
  failed(err) {
    this.set({ status: "error", error: PedelecError.from(err) });
  }
  /** The session exists: follow it. */
  attach(session) {
    this.detach();
    const follows = session.disconnectGraceMs > 0;
    const messages = follows ? loadChat(session.sessionId) : [];
    this.ids = messages.length;
    this.set({ session, status: session.getStatus(), error: null, messages, sending: false });
    this.offs = [
      session.onStatus((status) => this.set({ status })),
      session.onError((error) => this.set({ error })),
      session.onEnded(() => this.set({ status: "ended", sending: false })),
      session.onChat((delta, ctx) => this.assistantText(ctx.turnId, delta))
    ];
  }
  detach() {
    for (const off of this.offs.splice(0)) off();
  }
  async send(text) {
    const session = this.state.session;
    if (!session) throw new PedelecError("SESSION_ENDED", "useChat().send: there is no session yet (the provider is still starting it, or it failed)");
    this.set({ messages: [...this.state.messages, { id: this.nextId(), role: "user", text }], sending: true, error: null });
    try {
      const turn = await session.sendTurn(text);
      this.assistantText(turn.turnId, "", turn.text);
    } catch (err) {
      this.set({ error: PedelecError.from(err) });
      throw err;
    } finally {
      this.set({ sending: false });
    }
  }
  assistantText(turnId, delta, whole) {
    const messages = [...this.state.messages];
    const i = messages.findIndex((m) => m.role === "assistant" && m.turnId === turnId);
    if (i >= 0) {
      const m = messages[i];
      messages[i] = { ...m, text: whole ?? m.text + delta };
    } else {
      if (whole === "" && delta === "") return;
      messages.push({ id: this.nextId(), role: "assistant", text: whole ?? delta, turnId });
    }
    this.set({ messages });
  }
  nextId() {
    return `m${++this.ids}`;
  }
  set(patch) {
    this.state = { ...this.state, ...patch };
    const s = this.state.session;
    if (patch.messages && s && s.disconnectGraceMs > 0) saveChat(s.sessionId, this.state.messages);
    for (const fn of [...this.listeners]) fn();
  }
};
function loadChat(sessionId) {
  try {
    const raw = sessionStorage.getItem(CHAT_KEY + sessionId);
    const v = raw ? JSON.parse(raw) : [];
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}
function saveChat(sessionId, messages) {
  try {
    sessionStorage.setItem(CHAT_KEY + sessionId, JSON.stringify(messages));
  } catch {
  }
}

// src/react/provider.ts
var PedelecContext = createContext(null);
function PedelecProvider(props) {
  const [client] = useState(() => props.client ?? new Pedelec(props.options));
  const [store] = useState(() => new SessionStore());
  const owned = useRef(null);
  const input = props.session ?? null;
  const inputRef = useRef(input);
  inputRef.current = input;
  useEffect(() => {
    const wanted = inputRef.current;
    if (!wanted) return;
    let entry = owned.current;
    if (entry?.endTimer !== void 0) {
      clearTimeout(entry.endTimer);
      entry.endTimer = void 0;
    }
    if (!entry) {
      store.starting();
      const promise = client.createSession(wanted);
      entry = { promise };
      owned.current = entry;
      promise.then(
        (session) => {
          if (owned.current === entry) store.attach(session);
        },
        (err) => {
          if (owned.current === entry) store.failed(err);
        }
      );
    }
    const mine = entry;
    const follows = wanted.followPage === true;
    return () => {
      mine.endTimer = setTimeout(() => {
        if (owned.current !== mine) return;
        owned.current = null;
        store.detach();
        if (!follows) mine.promise.then((s) => s.end()).catch(() => {
        });
      }, 0);
    };
  }, [client, store, input === null]);
  return createElement(PedelecContext.Provider, { value: { client, store } }, props.children);
}
function useContextValue(hook) {
  const v = useContext(PedelecContext);
  if (!v) throw new Error(`${hook} must be called inside <PedelecProvider>`);
  return v;
}
function usePedelec() {
  return useContextValue("usePedelec()").client;
}
function useSession() {
  const { store } = useContextValue("useSession()");
  const s = useSyncExternalStore(store.subscribe, store.snapshot, store.snapshot);
  return { session: s.session, status: s.status, error: s.error };
}
function useStore(hook) {
  return useContextValue(hook).store;
}

// src/react/use-tool.ts
import { useEffect as useEffect2, useLayoutEffect, useRef as useRef2, useState as useState2 } from "react";
import { addTool, PedelecError as PedelecError2 } from "./pedelec.js";
var useIsomorphicLayoutEffect = typeof window === "undefined" ? useEffect2 : useLayoutEffect;
function useTool(definition, handler) {
  const { session } = useSession();
  const handlerRef = useRef2(handler);
  const definitionRef = useRef2(definition);
  useIsomorphicLayoutEffect(() => {
    handlerRef.current = handler;
    definitionRef.current = definition;
  });
  const [state, setState] = useState2({ registered: false, error: null });
  const text = definitionText(definition);
  useEffect2(() => {
    if (!session || session.getStatus() === "ended") return;
    let dispose;
    try {
      const def = { ...definitionRef.current, handler: (args, ctx) => handlerRef.current(args, ctx) };
      dispose = addTool(session, def);
      setState({ registered: true, error: null });
    } catch (err) {
      const error = PedelecError2.from(err);
      if (typeof console !== "undefined") console.error(`useTool(${JSON.stringify(definitionRef.current?.name)}): ${error.message}`);
      setState({ registered: false, error });
    }
    return () => {
      dispose?.();
      setState((s) => s.registered ? { registered: false, error: s.error } : s);
    };
  }, [session, text]);
  return state;
}
function definitionText(d) {
  const { name, description, argsSchema, outputSchema, annotations, timeoutMs, needsApproval } = d;
  try {
    return JSON.stringify([name, description, argsSchema, outputSchema, annotations, timeoutMs, needsApproval]);
  } catch {
    return String(name);
  }
}

// src/react/use-chat.ts
import { useCallback, useSyncExternalStore as useSyncExternalStore2 } from "react";
function useChat() {
  const store = useStore("useChat()");
  const s = useSyncExternalStore2(store.subscribe, store.snapshot, store.snapshot);
  const send = useCallback((text) => store.send(text), [store]);
  const busy = s.status === "running" || s.status === "waiting_tool_result";
  const last = s.messages[s.messages.length - 1];
  const streaming = busy && last?.role === "assistant" ? last.text : "";
  return { messages: s.messages, streaming, status: s.status, error: s.error, sending: s.sending, send };
}

// src/react/use-navigated-call.ts
import { useEffect as useEffect3, useRef as useRef3 } from "react";
import { onNavigatedCall } from "./pedelec.js";
function useNavigatedCall(answer) {
  const { session } = useSession();
  const ref = useRef3(answer);
  ref.current = answer;
  useEffect3(() => {
    if (!session) return;
    return onNavigatedCall(session, (call) => ref.current(call));
  }, [session]);
}
export {
  PedelecProvider,
  useChat,
  useNavigatedCall,
  usePedelec,
  useSession,
  useTool
};
