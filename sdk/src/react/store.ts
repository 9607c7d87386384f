// What the React binding shows of one provider's session, outside React:
// the session, its status, the last error and the chat. It subscribes to
// the session the moment the session exists (not in an effect, which
// runs later and would miss the first events of a resumed session), and
// React reads it through useSyncExternalStore.

import { PedelecError, type PedelecSession, type PedelecSessionStatus } from "@kaoruisaac/pedelec";

export type ChatMessage = {
  /** Stable key for lists. */
  id: string;
  role: "user" | "assistant";
  text: string;
  /** The turn the message belongs to, once Core named it. */
  turnId?: string;
};

/** The provider's session as the hooks see it. */
export type SessionState = {
  session: PedelecSession | null;
  /** "starting" until the session is created or resumed; then the session's status. */
  status: PedelecSessionStatus | "starting" | "none";
  /** The last error: createSession's failure, or one the session reported (onError). */
  error: PedelecError | null;
  messages: readonly ChatMessage[];
  /** A turn this page sent is running. */
  sending: boolean;
};

const CHAT_KEY = "pedelec.chat:";

export class SessionStore {
  private state: SessionState = { session: null, status: "none", error: null, messages: [], sending: false };
  private readonly listeners = new Set<() => void>();
  private offs: (() => void)[] = [];
  private ids = 0;

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  snapshot = (): SessionState => this.state;

  starting() {
    this.set({ status: "starting", error: null });
  }

  failed(err: unknown) {
    this.set({ status: "error", error: PedelecError.from(err) });
  }

  /** The session exists: follow it. */
  attach(session: PedelecSession) {
    this.detach();
    const follows = session.disconnectGraceMs > 0;
    const messages = follows ? loadChat(session.sessionId) : [];
    this.ids = messages.length;
    this.set({ session, status: session.getStatus(), error: null, messages, sending: false });
    this.offs = [
      session.onStatus((status) => this.set({ status })),
      session.onError((error) => this.set({ error })),
      session.onEnded(() => this.set({ status: "ended", sending: false })),
      session.onChat((delta, ctx) => this.assistantText(ctx.turnId, delta)),
    ];
  }

  detach() {
    for (const off of this.offs.splice(0)) off();
  }

  async send(text: string): Promise<void> {
    const session = this.state.session;
    if (!session) throw new PedelecError("SESSION_ENDED", "useChat().send: there is no session yet (the provider is still starting it, or it failed)");
    this.set({ messages: [...this.state.messages, { id: this.nextId(), role: "user", text }], sending: true, error: null });
    try {
      const turn = await session.sendTurn(text);
      // The whole message, as the turn ended: the deltas' sum, and more
      // when some came before this page subscribed.
      this.assistantText(turn.turnId, "", turn.text);
    } catch (err) {
      this.set({ error: PedelecError.from(err) });
      throw err;
    } finally {
      this.set({ sending: false });
    }
  }

  private assistantText(turnId: string, delta: string, whole?: string) {
    const messages = [...this.state.messages];
    const i = messages.findIndex((m) => m.role === "assistant" && m.turnId === turnId);
    if (i >= 0) {
      const m = messages[i]!;
      messages[i] = { ...m, text: whole ?? m.text + delta };
    } else {
      if (whole === "" && delta === "") return;
      messages.push({ id: this.nextId(), role: "assistant", text: whole ?? delta, turnId });
    }
    this.set({ messages });
  }

  private nextId(): string {
    return `m${++this.ids}`;
  }

  private set(patch: Partial<SessionState>) {
    this.state = { ...this.state, ...patch };
    const s = this.state.session;
    if (patch.messages && s && s.disconnectGraceMs > 0) saveChat(s.sessionId, this.state.messages);
    for (const fn of [...this.listeners]) fn();
  }
}

// A session that follows the page keeps its chat with it: the next page
// shows what was said before it.
function loadChat(sessionId: string): ChatMessage[] {
  try {
    const raw = sessionStorage.getItem(CHAT_KEY + sessionId);
    const v = raw ? (JSON.parse(raw) as unknown) : [];
    return Array.isArray(v) ? (v as ChatMessage[]) : [];
  } catch {
    return [];
  }
}

function saveChat(sessionId: string, messages: readonly ChatMessage[]) {
  try {
    sessionStorage.setItem(CHAT_KEY + sessionId, JSON.stringify(messages));
  } catch {
    // full or disabled: the next page starts with an empty chat
  }
}
