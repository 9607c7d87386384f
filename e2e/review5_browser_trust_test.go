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

// A page's own keyStore whose get throws, or rejects: createSession fails
// at once with CORE_KEY_STORE_FAILED and nothing is sent to Core (it used
// to never settle, its socket left open); once the store works, the same
// client connects.
func TestBrowserKeyStoreThatFailsFailsAtOnce(t *testing.T) {
	env := newSDKEnv(t)
	var got []struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	}
	env.b.js(t, &got, `
const { Pedelec } = window.sdk;
const out = [];
for (const fail of [() => { throw new Error("storage exploded"); }, () => Promise.reject(new Error("storage exploded"))]) {
  let broken = true;
  const keys = new Map();
  const pedelec = new Pedelec({ keyStore: { get: (k) => broken ? fail() : (keys.get(k) ?? null), set: (k, v) => void keys.set(k, v), remove: (k) => void keys.delete(k) } });
  const outcome = await Promise.race([
    pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } }).then(() => ({ code: "CREATED" }), (e) => ({ code: e.code, message: e.message, details: e.details })),
    h.sleep(20000).then(() => ({ code: "STILL PENDING AFTER 20 s" })),
  ]);
  out.push(outcome);
  broken = false;
  const s = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
  out.push({ code: s.getStatus() === "ended" ? "ENDED" : "CREATED" });
  await s.end();
  pedelec.close();
}
return out;
`)
	t.Logf("outcomes: %+v", got)
	if len(got) != 4 {
		t.Fatalf("outcomes: %+v", got)
	}
	for _, i := range []int{0, 2} {
		if got[i].Code != "CORE_KEY_STORE_FAILED" || !strings.Contains(got[i].Message, "storage exploded") || got[i].Details["coreUrl"] == nil {
			t.Errorf("createSession with a failing key store: %+v", got[i])
		}
		if got[i+1].Code != "CREATED" {
			t.Errorf("createSession once the store works: %+v", got[i+1])
		}
	}
	if n := strings.Count(strings.Join(env.b.sentFrames(), "\n"), "create_session"); n != 2 {
		t.Errorf("the page sent %d create_session requests, want the 2 made once the store worked", n)
	}
}
