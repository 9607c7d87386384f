// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.
import { type ReactNode } from "react";
import { Pedelec, type AnyProviderCode, type AnyToolDefinition, type CreateSessionInput, type PedelecOptions } from "../pedelec.js";
import { type SessionState } from "./store.js";
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
export declare function PedelecProvider(props: PedelecProviderProps): ReactNode;
/** The provider's client. */
export declare function usePedelec(): Pedelec;
/** The provider's session: {session, status, error}; session is null until it exists. */
export declare function useSession(): Pick<SessionState, "session" | "status" | "error">;
