// useChat(): the provider's session as a chat: the messages (the
// assistant's streamed as its deltas arrive), the status, the last
// error, whether a turn this page sent runs, and send(). A session that
// follows the page keeps its messages across navigations (sessionStorage).

import { useCallback, useSyncExternalStore } from "react";
import type { PedelecError } from "@kaoruisaac/pedelec";
import { useStore } from "./provider.js";
import type { ChatMessage, SessionState } from "./store.js";

export type UseChatResult = {
  messages: readonly ChatMessage[];
  /** The assistant's text of the turn running now, as streamed so far ("" when none). */
  streaming: string;
  status: SessionState["status"];
  error: PedelecError | null;
  /** A turn this page sent is running (send() has not settled). */
  sending: boolean;
  /** Sends one user turn; resolves when it ends, rejects with its error (also in `error`). */
  send: (text: string) => Promise<void>;
};

export function useChat(): UseChatResult {
  const store = useStore("useChat()");
  const s = useSyncExternalStore(store.subscribe, store.snapshot, store.snapshot);
  const send = useCallback((text: string) => store.send(text), [store]);
  // A call waiting for the user's consent is waiting_tool_result (the original's five statuses).
  const busy = s.status === "running" || s.status === "waiting_tool_result";
  const last = s.messages[s.messages.length - 1];
  const streaming = busy && last?.role === "assistant" ? last.text : "";
  return { messages: s.messages, streaming, status: s.status, error: s.error, sending: s.sending, send };
}
