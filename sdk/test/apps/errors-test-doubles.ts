// Errors and test doubles, as written against the original SDK: plain
// PedelecError objects, hand-built event contexts, a fake session.
import type { PedelecError, ChatEventContext, StatusEventContext, ErrorEventContext, EndedEventContext, PedelecAvailability, ApprovalStatus, PedelecSettings, ProviderInfo } from "@kaoruisaac/pedelec";

export const busy: PedelecError = { code: "SESSION_BUSY", message: "A turn is running." };
export const withDetails: PedelecError = { code: "THREAD_NOT_FOUND", message: "gone", details: { sessionId: "s" } };

export function describe(error: PedelecError): string {
  switch (error.code) {
    case "SESSION_BUSY":
      return "Wait for the current answer.";
    case "EXTENSION_UNAVAILABLE":
    case "CORE_RUNTIME_UNAVAILABLE":
      return "Pedelec is not running.";
    default:
      return `${error.code}: ${error.message}`;
  }
}

export function rethrowable(error: unknown): PedelecError {
  const value = error as PedelecError;
  return { ...value };
}

const base = { sessionId: "s-1", provider: "codex", sessionCreatedAt: 0, eventEmittedAt: 1 } as const;
export const chat: ChatEventContext = { ...base, type: "chat_delta", turnId: "t-1", turnStartedAt: 1, eventReceivedAt: 1, source: "core" };
export const status: StatusEventContext = { ...base, type: "status_changed", status: "running", previousStatus: "idle", source: "core" };
export const errorCtx: ErrorEventContext = { ...base, type: "sdk_error", source: "sdk" };
export const ended: EndedEventContext = { ...base, type: "ended", source: "core" };

export const unavailable: PedelecAvailability = {
  available: false,
  extension: { available: false },
  approval: { approved: false, origin: "https://app.example" },
  desktop: { available: false, launchAttempted: false },
  error: { code: "EXTENSION_UNAVAILABLE", message: "no extension" },
};
export const notInstalled: ApprovalStatus = { installed: false, approved: false, origin: "https://app.example", appConnected: false };
export const settings: PedelecSettings = { defaultProvider: "codex", defaultModels: { codex: "gpt-5" } };
export const providers: ProviderInfo[] = [{ name: "Codex", code: "codex", available: true, error: null }];

export class FakeSession {
  readonly sessionId = "s-1";
  readonly provider = "codex";
  readonly sessionCreatedAt = 0;
  private chatHandlers: ((text: string, ctx: ChatEventContext) => void)[] = [];
  onChat(handler: (text: string, ctx: ChatEventContext) => void): () => void {
    this.chatHandlers.push(handler);
    return () => (this.chatHandlers = this.chatHandlers.filter((h) => h !== handler));
  }
  emit(text: string): void {
    for (const h of this.chatHandlers) h(text, chat);
  }
  async sendText(text: string): Promise<void> {
    if (text === "busy") throw busy;
  }
}
