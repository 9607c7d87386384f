// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.
import { PedelecError, type PedelecSession, type PedelecSessionStatus } from "../pedelec.js";
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
export declare class SessionStore {
    private state;
    private readonly listeners;
    private offs;
    private ids;
    subscribe: (fn: () => void) => (() => void);
    snapshot: () => SessionState;
    starting(): void;
    failed(err: unknown): void;
    /** The session exists: follow it. */
    attach(session: PedelecSession): void;
    detach(): void;
    send(text: string): Promise<void>;
    private assistantText;
    private nextId;
    private set;
}
