// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.
import type { PedelecError } from "../pedelec.js";
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
export declare function useChat(): UseChatResult;
