package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// The fifth hostile review, in real Chromium: a page that trusts Core (its
// key stored) has a session; Core goes away and another user's program
// takes its port. The page's reconnect reaches it, and its first message
// is not a hello but the session's events (a tool call transferring funds,
// chat, the session's end), sent before a hello whose proof is by a key of
// its own. The session id is handed to the impostor here, as if it had
// leaked. The page must handle none of it: no handler runs, no chat, the
// session does not end, and the impostor receives no message.
func TestBrowserImpostorEventsBeforeTheProofAreNotHandled(t *testing.T) {
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			asNobody(t)
			env := newR5Env(t, u)
			var sid string
			env.b.js(t, &sid, `
const { Pedelec, defineTool } = window.sdk;
window.ran = [];
const pedelec = new Pedelec();
const transfer = defineTool({ name: "transfer_funds", description: "Move money.", argsSchema: { type: "object", properties: { to: { type: "string" } } },
  handler: (args) => { window.ran.push(args); return { sent: true }; } });
const session = await pedelec.createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [transfer] } });
window.rec = h.record(session);
window.session = session;
await h.waitFor(() => localStorage.getItem("pedelec:core-key:" + new URL(pedelec.url).host), "the key to be stored");
return session.sessionId;
`)
			var stored string
			env.b.js(t, &stored, `return localStorage.getItem("pedelec:core-key:`+env.core.Addr+`")`)
			if stored != env.core.Key(t) {
				t.Fatalf("the page stored %q, want Core's key", stored)
			}

			env.core.Stop(t)
			peek, stop := r5Impostor(t, nobody, env.core.Addr, "events", sid)
			// The page reconnects by itself; two upgrades mean it handled the
			// first socket's messages and tried again (a page that obeyed the
			// forged end tries no more).
			testenv.Await(t, 60*time.Second, "the page's reconnect to reach the impostor twice", func() bool {
				if strings.Count(peek(), "UPGRADE ") >= 2 {
					return true
				}
				var obeyed bool
				return env.b.tryJS(&obeyed, `return window.ran.length > 0 || window.session.getStatus() === "ended"`) == nil && obeyed
			})
			var got struct {
				Ran    []map[string]any `json:"ran"`
				Chats  []map[string]any `json:"chats"`
				Ended  []string         `json:"ended"`
				Status string           `json:"status"`
			}
			env.b.js(t, &got, `return { ran: window.ran, chats: window.rec.chats, ended: window.rec.ended, status: window.session.getStatus() };`)
			received := stop()
			t.Logf("the page after the impostor (Core as %s): %+v", u.name, got)
			if len(got.Ran) != 0 {
				t.Errorf("a handler ran on the impostor's word: %v", got.Ran)
			}
			if len(got.Chats) != 0 {
				t.Errorf("the impostor's chat reached the page: %v", got.Chats)
			}
			if len(got.Ended) != 0 || got.Status == "ended" {
				t.Errorf("the impostor ended the page's session: %v (status %s)", got.Ended, got.Status)
			}
			if n := strings.Count(received, "WS "); n != 0 {
				t.Errorf("the impostor received %d WebSocket messages:\n%.3000s", n, received)
			}
		})
	}
}
