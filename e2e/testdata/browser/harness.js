// The page the browser tests drive: an app on its own origin that imports
// the SDK straight from Core (?core=http://127.0.0.1:PORT), exactly as the
// README tells an application to. Tests run the seeds' code in it.
const core = new URLSearchParams(location.search).get("core");
try {
  window.sdk = await import(`${core}/sdk/pedelec.js`);
  window.ready = true;
} catch (err) {
  window.loadError = String(err);
}

// Small helpers the tests' snippets share.
window.h = {
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),

  async waitFor(cond, what, ms = 10000) {
    const end = Date.now() + ms;
    while (!(await cond())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  },

  /** Records what a session reports, for assertions: listeners get (value, ctx), as the original SDK documents. */
  record(session) {
    const rec = { statuses: [], errors: [], chats: [], ended: [] };
    session.onStatus((status, ctx) => rec.statuses.push({ status, previousStatus: ctx.previousStatus, source: ctx.source, type: ctx.type, waitingOn: ctx.waitingOn }));
    session.onError((e, ctx) => rec.errors.push({ code: e.code, message: e.message, details: e.details ?? null, type: ctx.type }));
    session.onChat((delta, ctx) => rec.chats.push({ turnId: ctx.turnId, delta, text: ctx.text }));
    session.onEnded((ctx) => rec.ended.push(ctx.reason));
    return rec;
  },

  /** The JSON lines the agent printed (the script provider echoes what the CLI printed). */
  agentSaw(text) {
    return text
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l));
  },

  errorOf(e) {
    return { code: e?.code ?? null, message: e?.message ?? String(e), details: e?.details ?? null, isError: e instanceof Error };
  },
};
