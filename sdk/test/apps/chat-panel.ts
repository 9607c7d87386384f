// A chat panel, as written against the original SDK: a provider picker
// labelled by code, streaming text, status, errors.
import { Pedelec, type PedelecSession, type ProviderCode, type ProviderInfo, type PedelecSessionStatus, type PedelecError, type ChatEventContext } from "@kaoruisaac/pedelec";

const LABELS: Record<ProviderCode, string> = {
  codex: "Codex",
  antigravity: "Antigravity",
  opencode: "opencode",
  cursor: "Cursor",
  claude: "Claude Code",
  ollama: "Ollama",
};

function iconFor(code: ProviderCode): string {
  switch (code) {
    case "codex":
      return "openai.svg";
    case "claude":
      return "anthropic.svg";
    case "ollama":
      return "llama.svg";
    case "opencode":
    case "cursor":
    case "antigravity":
      return "generic.svg";
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

export class ChatPanel {
  private readonly pedelec = new Pedelec({ bridgeTimeoutMs: 30_000 });
  private session: PedelecSession | null = null;
  private transcript = new Map<string, string>();
  status: PedelecSessionStatus = "idle";
  lastError: PedelecError | null = null;

  async providers(): Promise<{ label: string; icon: string; info: ProviderInfo }[]> {
    const list = await this.pedelec.listProviders();
    return list.filter((p) => p.available).map((info) => ({ label: LABELS[info.code], icon: iconFor(info.code), info }));
  }

  async start(provider?: ProviderCode, model?: string): Promise<void> {
    const settings = await this.pedelec.getSettings();
    const chosen = provider ?? settings.defaultProvider;
    this.session = chosen
      ? await this.pedelec.createSession({ provider: chosen, model: model ?? settings.defaultModels[chosen] })
      : await this.pedelec.createSession();
    this.session.onChat((delta: string, ctx: ChatEventContext) => {
      this.transcript.set(ctx.turnId, (this.transcript.get(ctx.turnId) ?? "") + delta);
    });
    this.session.onStatus((status, ctx) => {
      this.status = status;
      console.debug(ctx.previousStatus, "->", status, ctx.source);
    });
    this.session.onError((error) => {
      this.lastError = error;
    });
    this.session.onEnded(() => {
      this.session = null;
    });
  }

  async send(text: string): Promise<void> {
    if (!this.session || this.session.getStatus() !== "idle") return;
    try {
      await this.session.sendText(text);
    } catch (error) {
      const value = error as PedelecError;
      this.lastError = { code: value.code, message: value.message, details: value.details };
    }
  }
}
