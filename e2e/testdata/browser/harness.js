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

  /** Records what a session reports, for assertions. */
  record(session) {
    const rec = { statuses: [], errors: [], chats: [], ended: [] };
    session.onStatus((e) => rec.statuses.push(e));
    session.onError((e) => rec.errors.push({ code: e.code, message: e.message, details: e.details ?? null }));
    session.onChat((c) => rec.chats.push(c));
    session.onEnded((e) => rec.ended.push(e.reason));
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
