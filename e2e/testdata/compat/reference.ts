// The original Pedelec's API reference examples (reference/pedelec.mdx and
// reference/pedelec-session.mdx, v0.1.23), each code block exactly as the
// page shows it, run in order. Each client example runs inside attempt(),
// which records what it returned or the error it threw; the session
// examples run on one session, created from the listed providers (the
// pages' own `provider: "codex"` examples run too and, without Codex,
// must fail with a clear error). What the examples leave to the app
// (counter, transcript, renderStatus, ...) is defined first.

import { Pedelec } from "@kaoruisaac/pedelec";

// ---- the application around the examples ----
const results: Record<string, unknown> = {};
async function attempt(name: string, fn: () => Promise<unknown>) {
  try {
    results[name] = { ok: true, value: await fn() };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    results[name] = { ok: false, code: err.code, message: err.message };
  }
}
let counterValue = 0;
const counter = { add: (delta: number) => (counterValue += delta) };
const lines: { turnId: string; delta: string }[] = [];
const transcript = { append: (turnId: string, delta: string) => lines.push({ turnId, delta }) };
const statuses: string[] = [];
const renderStatus = (status: string) => statuses.push(status);
let composerDisabled = false;
const disableComposer = () => (composerDisabled = true);
const errors: string[] = [];
const origError = console.error;
console.error = (...args: unknown[]) => {
  errors.push(args.map(String).join(" "));
  origError(...args);
};

// ---- reference/pedelec.mdx ----
const pedelec = new Pedelec({
  bridgeTimeoutMs: 30_000,
});

await attempt("createSession codex", async () => {
const session = await pedelec.createSession({
  provider: "codex",
  autoEndOnDisconnect: true,
});
return session.sessionId;
});

let ready: { code: string }[] = [];
await attempt("listProviders", async () => {
const providers = await pedelec.listProviders();
const ready = providers.filter((provider) => provider.available);
return { providers, ready };
});
ready = ((results.listProviders as { value: { ready: { code: string }[] } }).value.ready);

await attempt("getSettings", async () => {
const settings = await pedelec.getSettings();
console.log(settings.defaultProvider);
return settings;
});

await attempt("getApprovalStatus", () => pedelec.getApprovalStatus());

await attempt("checkAvailability", async () => {
const availability = await pedelec.checkAvailability();
if (availability.available) {
  // Extension, approval, and Desktop settings probe all succeeded.
}
return availability;
});

await attempt("request create_session codex", async () => {
const result = await pedelec.request<{ sessionId: string }>(
  "create_session",
  {
    input: {
      provider: "codex",
      autoEndOnDisconnect: true,
    },
  },
);
return result;
});

// ---- reference/pedelec-session.mdx, on a session of the first ready provider ----
const session = await pedelec.createSession({
  provider: ready[0]!.code as "script",
  autoEndOnDisconnect: false,
  skills: {
    guidance: "Use update_counter to change the counter.",
    tools: [{
      name: "update_counter",
      description: "Add delta to the visible counter.",
      argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] },
    }],
  },
});
const savedSessionId = session.sessionId;

await session.prepare().catch(() => {
  // Keep sendText available; preparation is an optimization.
});

{
const off = session.onChat((delta, ctx) => {
  transcript.append(ctx.turnId, delta);
});
void off;
}
{
const off = session.onTool(
  "update_counter",
  (args: { delta: number }) => ({
    value: counter.add(args.delta),
  }),
);
void off;
}
{
const off = session.onError((error, ctx) => {
  console.error(ctx.source, error.code, error.message, error.details);
});
void off;
}
{
renderStatus(session.getStatus());
const off = session.onStatus(renderStatus);
void off;
}
{
const off = session.onEnded(() => {
  disableComposer();
});
void off;
}

await session.sendText("Analyze the current page.");

const text = 'call update_counter {"delta": 2}\ncall update_counter {"delta": "two"}';
if (session.getStatus() === "idle") {
  await session.sendText(text);
}

await attempt("resumeSession", async () => {
const session = await pedelec.resumeSession(savedSessionId);
return { sessionId: session.sessionId, status: session.getStatus() };
});

await session.end();
await session.end();

(window as unknown as Record<string, unknown>).reference = {
  results,
  lines,
  statuses,
  counter: counterValue,
  composerDisabled,
  errors,
  sessionCreatedAt: session.sessionCreatedAt,
  finalStatus: session.getStatus(),
};
