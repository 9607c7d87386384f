package e2e

import (
	"strings"
	"testing"
)

// The fifth review (e): the SDK's bound on the events of sessions it does
// not know yet (32 sessions) against a real flow: one page creating 40
// sessions at once (Core's limits raised to let it), then a turn in each.
// Every session's turn settles and its chat arrives whole; none of the
// page's own events is forgotten as an unknown session's. Core as root and
// as a normal user.
func TestBrowserManySessionsAtOnceLoseNoEvents(t *testing.T) {
	const n = 40
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			env := newR5Env(t, u, "--max-sessions", "64", "--max-sessions-per-connection", "64")
			var got []struct {
				ID       string `json:"id"`
				Create   string `json:"create"`
				Result   string `json:"result"`
				Chat     string `json:"chat"`
				Statuses int    `json:"statuses"`
			}
			env.b.js(t, &got, `
// What Core sends, in order, as the SDK's socket receives it.
const frames = [];
const Real = window.WebSocket;
window.WebSocket = class extends Real {
  constructor(...a) {
    super(...a);
    this.addEventListener("message", (ev) => { const v = JSON.parse(ev.data); for (const f of Array.isArray(v) ? v : [v]) frames.push(f); });
  }
};
const { Pedelec } = window.sdk;
const pedelec = new Pedelec();
const n = `+itoa(n)+`;
const made = await Promise.all(Array.from({ length: n }, () =>
  pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } }).then((s) => ({ s }), (e) => ({ code: e.code + ": " + e.message }))));
const recs = made.map((m) => (m.s ? h.record(m.s) : null));
const results = await Promise.all(made.map((m, i) => (m.s ? Promise.race([m.s.sendText("say hello " + i).then(() => "ok", (e) => e.code), h.sleep(120000).then(() => "no answer in 120 s")]) : "")));
await h.sleep(500);
// Sessions with an event before the response that named them: what the
// SDK keeps as an unknown session's until the session subscribes.
const named = new Set();
const early = new Set();
for (const f of frames) {
  if (f.type === "response" && f.result?.sessionId) named.add(f.result.sessionId);
  if (f.type === "event" && !named.has(f.sessionId)) early.add(f.sessionId);
}
window.earlySessions = early.size;
return made.map((m, i) => ({ id: m.s?.sessionId ?? "", create: m.code ?? "", result: results[i], chat: recs[i] ? recs[i].chats.map((c) => c.delta).join("") : "", statuses: recs[i]?.statuses.length ?? 0 }));
`)
			var early int
			env.b.js(t, &early, `return window.earlySessions`)
			t.Logf("sessions with events before their create_session response: %d", early)
			bad := 0
			for i, r := range got {
				if r.Create != "" || r.Result != "ok" || !strings.Contains(r.Chat, "hello "+itoa(i)) {
					bad++
					t.Errorf("session %d: %+v", i, r)
				}
			}
			t.Logf("%d sessions made at once, %d with a lost or failed turn", len(got), bad)
			if len(got) != n {
				t.Fatalf("%d sessions, want %d", len(got), n)
			}
		})
	}
}
