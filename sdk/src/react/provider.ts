// <PedelecProvider>: holds the client and, when given `session`, the one
// session of its subtree, created (or, with followPage, resumed) when the
// provider mounts and ended when it unmounts for good.
//
// StrictMode mounts, unmounts and mounts again every effect in
// development. The session is kept in a ref, which survives that, and
// the end on unmount waits one task: the second mount comes before it
// and cancels it, so a mount pair makes one session, not two.

import { createElement, createContext, useContext, useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from "react";
import { Pedelec, type AnyProviderCode, type AnyToolDefinition, type CreateSessionInput, type PedelecOptions, type PedelecSession } from "@kaoruisaac/pedelec";
import { SessionStore, type SessionState } from "./store.js";

export type PedelecProviderProps = {
  /** The client; by default one `new Pedelec(options)` for the provider's life. */
  client?: Pedelec;
  /** The client's options when no client is given. */
  options?: PedelecOptions;
  /**
   * The session of this subtree: createSession's input, read when the
   * provider mounts (or when it changes from null). With followPage: true
   * the previous page's session is resumed, and it is not ended on
   * unmount. null or absent: no session (yet).
   */
  session?: CreateSessionInput<readonly AnyToolDefinition[], AnyProviderCode> | null;
  children?: ReactNode;
};

type ContextValue = { client: Pedelec; store: SessionStore };

const PedelecContext = createContext<ContextValue | null>(null);

type Owned = { promise: Promise<PedelecSession<string, readonly AnyToolDefinition[]>>; endTimer?: ReturnType<typeof setTimeout> };

export function PedelecProvider(props: PedelecProviderProps): ReactNode {
  const [client] = useState(() => props.client ?? new Pedelec(props.options));
  const [store] = useState(() => new SessionStore());
  const owned = useRef<Owned | null>(null);
  const input = props.session ?? null;
  const inputRef = useRef(input);
  inputRef.current = input;

  useEffect(() => {
    const wanted = inputRef.current;
    if (!wanted) return;
    let entry = owned.current;
    if (entry?.endTimer !== undefined) {
      // StrictMode's second mount: keep the session the first one made.
      clearTimeout(entry.endTimer);
      entry.endTimer = undefined;
    }
    if (!entry) {
      store.starting();
      const promise = client.createSession(wanted as CreateSessionInput<readonly AnyToolDefinition[], AnyProviderCode>) as Owned["promise"];
      entry = { promise };
      owned.current = entry;
      promise.then(
        (session) => {
          if (owned.current === entry) store.attach(session as unknown as PedelecSession);
        },
        (err) => {
          if (owned.current === entry) store.failed(err);
        },
      );
    }
    const mine = entry;
    const follows = wanted.followPage === true;
    return () => {
      mine.endTimer = setTimeout(() => {
        if (owned.current !== mine) return;
        owned.current = null;
        store.detach();
        // A session that follows the page outlives its components: the
        // next page continues it. Any other ends with its provider.
        if (!follows) mine.promise.then((s) => s.end()).catch(() => {});
      }, 0);
    };
  }, [client, store, input === null]);

  return createElement(PedelecContext.Provider, { value: { client, store } }, props.children);
}

function useContextValue(hook: string): ContextValue {
  const v = useContext(PedelecContext);
  if (!v) throw new Error(`${hook} must be called inside <PedelecProvider>`);
  return v;
}

/** The provider's client. */
export function usePedelec(): Pedelec {
  return useContextValue("usePedelec()").client;
}

/** The provider's session: {session, status, error}; session is null until it exists. */
export function useSession(): Pick<SessionState, "session" | "status" | "error"> {
  const { store } = useContextValue("useSession()");
  const s = useSyncExternalStore(store.subscribe, store.snapshot, store.snapshot);
  return { session: s.session, status: s.status, error: s.error };
}

/** @internal The store, for useChat. */
export function useStore(hook: string): SessionStore {
  return useContextValue(hook).store;
}
