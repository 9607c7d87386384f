// The original's demo app, as far as its published docs show it (the demo's
// own source is not in shared/reference): a connect flow with connection
// states, a provider picker over ProviderCode, a counter tool, a session
// kept across reloads, and error routing by code, against the original's
// types only. Issue 23 counted 5 type errors in the original's demo.
import { Pedelec, defineTool, type PedelecSession, type ProviderCode, type PedelecError, type PedelecAvailability, type StatusEventContext, type ToolNameOf } from "@kaoruisaac/pedelec";

type ConnectionState = "checking" | "extension-unavailable" | "awaiting-approval" | "connecting" | "no-provider" | "connected" | "error";

const PROVIDER_NAMES: { [K in ProviderCode]: string } = {
  codex: "Codex CLI",
  antigravity: "Antigravity",
  opencode: "OpenCode",
  cursor: "Cursor Agent",
  claude: "Claude Code",
  ollama: "Ollama",
};

let counter = 0;
const updateCounter = defineTool({
  name: "update_counter",
  description: "Add delta to the page's counter and return the new value.",
  argsSchema: {
    type: "object",
    properties: { delta: { type: "integer", minimum: -100, maximum: 100 } },
    required: ["delta"],
  },
  handler: (args: { delta: number }) => ({ value: (counter += args.delta) }),
});
const tools = [updateCounter] as const;
type DemoTool = ToolNameOf<typeof tools>;

let pedelec: Pedelec | null = null;
export function getPedelec(): Pedelec {
  pedelec ??= new Pedelec();
  return pedelec;
}

let state: ConnectionState = "checking";
const setConnectionState = (next: ConnectionState) => (state = next);
let active: PedelecSession<DemoTool> | null = null;

function routeConnectionError(error: unknown): void {
  const value = error as PedelecError;
  switch (value.code) {
    case "APPROVAL_REJECTED":
    case "APPROVAL_TIMEOUT":
      setConnectionState("awaiting-approval");
      return;
    case "EXTENSION_UNAVAILABLE":
    case "NATIVE_HOST_UNAVAILABLE":
      setConnectionState("extension-unavailable");
      return;
    default:
      setConnectionState("error");
      console.error(value.code, value.message, value.details);
  }
}

function registerSession(session: PedelecSession<DemoTool>): void {
  active = session;
  session.onStatus((status, ctx: StatusEventContext) => console.log(ctx.previousStatus, status));
  session.onError((error) => console.error(error.code, error.message));
  session.onEnded(() => {
    active = null;
    localStorage.removeItem("pedelec-demo-session");
  });
  localStorage.setItem("pedelec-demo-session", session.sessionId);
}

export async function connectPedelec(): Promise<void> {
  setConnectionState("checking");
  const client = getPedelec();
  const approval = await client.getApprovalStatus();
  if (!approval.installed) {
    setConnectionState("extension-unavailable");
    return;
  }
  setConnectionState(approval.approved ? "connecting" : "awaiting-approval");
  try {
    const providers = await client.listProviders();
    const provider = providers.find((item) => item.available);
    if (!provider) {
      setConnectionState("no-provider");
      return;
    }
    console.log(`Using ${PROVIDER_NAMES[provider.code]}`);
    const session = await client.createSession({ provider: provider.code, skills: { guidance: "Use update_counter to change the counter.", tools } });
    registerSession(session);
    setConnectionState("connected");
  } catch (error) {
    routeConnectionError(error);
  }
}

export async function availabilityBanner(): Promise<string> {
  const availability: PedelecAvailability = await getPedelec().checkAvailability();
  if (availability.available) return "Ready";
  return availability.error ? `${availability.error.code}: ${availability.error.message}` : "Unavailable";
}

export async function send(text: string): Promise<void> {
  if (!active) return;
  await active.prepare().catch(() => {});
  await active.sendText(text);
}

export { state };
