package e2e

import (
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// r5cPageSetup is a page that trusts Core: a session with a tool, its
// events recorded, and Core's key stored. Its client gives up an
// unanswered request after 4 s and retries a lost Core quickly.
const r5cPageSetup = `
const { Pedelec, defineTool } = window.sdk;
window.ran = [];
const pedelec = new Pedelec({ bridgeTimeoutMs: 4000, reconnect: { initialDelayMs: 200, maxDelayMs: 2000 } });
window.pedelec = pedelec;
const transfer = defineTool({ name: "transfer_funds", description: "Move money.", argsSchema: { type: "object", properties: { to: { type: "string" } } },
  handler: (args) => { window.ran.push(args); return { sent: true }; } });
const session = await pedelec.createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [transfer] } });
window.rec = h.record(session);
window.session = session;
await h.waitFor(() => localStorage.getItem("pedelec:core-key:" + new URL(pedelec.url).host), "the key to be stored");
return session.sessionId;
`

// r5cTryCreate starts, in the page, a createSession by a client with Core's
// key stored (the page's localStorage) and one by a client that has none
// (a key store of its own, empty), each giving up an unanswered request
// after 4 s; window.tries[name] gets its outcome and how long it took.
const r5cTryCreate = `
const { Pedelec, defineTool } = window.sdk;
window.tries = {};
const none = new Map();
const clients = {
  trusted: new Pedelec({ bridgeTimeoutMs: 4000 }),
  none: new Pedelec({ bridgeTimeoutMs: 4000, keyStore: { get: (k) => none.get(k) ?? null, set: (k, v) => void none.set(k, v), remove: (k) => void none.delete(k) } }),
};
window.r5cClients = clients;
for (const [name, client] of Object.entries(clients)) {
  if (window.r5cOnly && window.r5cOnly !== name) continue;
  const t0 = performance.now();
  const tool = defineTool({ name: "transfer_funds", description: "TOOL_MARKER_R5C", argsSchema: { type: "object", properties: {} }, handler: () => { window.ran.push("created " + name); return {}; } });
  client.createSession({ provider: "script", skills: { guidance: "GUIDANCE_MARKER_R5C", tools: [tool] } }).then(
    (s) => { window.tries[name] = { code: "CREATED", ms: performance.now() - t0, sessionId: s.sessionId }; },
    (e) => { window.tries[name] = { code: e.code, message: e.message, ms: performance.now() - t0 }; },
  );
}
`

type r5cTry struct {
	Code      string  `json:"code"`
	Message   string  `json:"message"`
	Ms        float64 `json:"ms"`
	SessionID string  `json:"sessionId"`
}

type r5cPageState struct {
	Ran    []any              `json:"ran"`
	Chats  []map[string]any   `json:"chats"`
	Ended  []string           `json:"ended"`
	Status string             `json:"status"`
	Tries  map[string]*r5cTry `json:"tries"`
}

func (e *r5Env) state(t *testing.T) r5cPageState {
	t.Helper()
	var st r5cPageState
	e.b.js(t, &st, `return { ran: window.ran, chats: window.rec.chats, ended: window.rec.ended, status: window.session.getStatus(), tries: window.tries ?? {} };`)
	return st
}

// comesBack restarts the real Core and reports (as an error, not fatal)
// a page session that is not idle again within 120 s of it.
func (e *r5Env) comesBack(t *testing.T) {
	t.Helper()
	e.core.restart(t)
	start := time.Now()
	back := false
	for !back && time.Since(start) < 120*time.Second {
		back = e.state(t).Status == "idle"
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("the session back: %v after %v", back, time.Since(start).Round(time.Millisecond))
	if !back {
		t.Errorf("the page's session did not come back within 120 s of the real Core (status %s)", e.state(t).Status)
	}
}

// r5cModes returns the modes to run, or only those in PEDELEC_E2E_R5C_ONLY.
func r5cModes(all ...string) []string {
	only := os.Getenv("PEDELEC_E2E_R5C_ONLY")
	if only == "" {
		return all
	}
	var out []string
	for _, m := range all {
		if strings.Contains(","+only+",", ","+m+",") {
			out = append(out, m)
		}
	}
	return out
}

// An impostor of another user on Core's port that stalls: accepts and
// stays silent, trickles its answer to the upgrade a byte a second, or
// answers the hello after the page's time limit. A page that trusts Core
// (its key stored) and one that has none try createSession against it, and
// the page's session reconnects to it on its own. What must hold: every
// createSession settles with a clear code in bounded time, no handler runs,
// no chat, the session does not end, nothing of the page's reaches the
// impostor, and the session is back once the real Core is.
func TestBrowserStallingImpostorSettlesAndThePageRecovers(t *testing.T) {
	testenv.SkipShort(t, "Chromium against an impostor")
	for _, u := range r5Users {
		for _, mode := range r5cModes("silent", "trickle", "late", "detach") {
			t.Run(u.name+"/"+mode, func(t *testing.T) {
				asNobody(t)
				env := newR5Env(t, u)
				env.b.js(t, nil, r5cPageSetup)
				env.core.Stop(t)
				peek, stop := r5cImpostor(t, nobody, env.core.Addr, mode, r5cDelayEnv+"=12")
				testenv.Await(t, 60*time.Second, "the page's reconnect to reach the impostor", func() bool {
					return strings.Contains(peek(), "UPGRADE") || strings.Contains(peek(), "ACCEPTED")
				})
				env.b.js(t, nil, r5cTryCreate)
				// Generous: a loaded machine, and the page's 4 s limit
				// twice over (the socket, then the request).
				deadline := time.Now().Add(90 * time.Second)
				var st r5cPageState
				for {
					st = env.state(t)
					if st.Tries["trusted"] != nil && st.Tries["none"] != nil {
						break
					}
					if time.Now().After(deadline) {
						break
					}
					time.Sleep(500 * time.Millisecond)
				}
				received := peek()
				t.Logf("Core as %s, impostor %s: trusted %+v; none %+v; session %s", u.name, mode, st.Tries["trusted"], st.Tries["none"], st.Status)
				for name, try := range map[string]*r5cTry{"trusted": st.Tries["trusted"], "none": st.Tries["none"]} {
					if try == nil {
						t.Errorf("the %s client's createSession did not settle within 90 s", name)
					}
				}
				if try := st.Tries["trusted"]; try != nil && try.Code == "CREATED" {
					t.Errorf("the trusting client created a session at the impostor: %+v", try)
				}
				if len(st.Ran) != 0 || len(st.Chats) != 0 || len(st.Ended) != 0 || st.Status == "ended" {
					t.Errorf("the impostor reached the page's session: ran %v, chats %v, ended %v, status %s", st.Ran, st.Chats, st.Ended, st.Status)
				}
				for _, secret := range []string{"TOOL_MARKER_R5C", "GUIDANCE_MARKER_R5C", "resume_session"} {
					if strings.Contains(received, secret) && !(mode == "late" && secret != "resume_session") {
						t.Errorf("the impostor received %s:\n%.3000s", secret, received)
					}
				}
				if mode != "detach" {
					stop()
				}
				env.comesBack(t)
			})
		}
	}
}

// An impostor of another user that answers the upgrade with a hello whose
// proof is wrong (a key of its own, or the real Core's proof of another
// nonce, replayed) and then floods the page with events for 8 s: its
// session's and sessions the page never heard of. The page that trusts
// Core must drop the socket at the hello and keep nothing of the flood
// (no handler, no chat, the session not ended, memory bounded); a client
// with no key (trust on first use) takes the impostor for Core, as
// documented, but must not keep what it cannot route without bound either.
func TestBrowserFloodingImpostorIsDroppedAndKeptBounded(t *testing.T) {
	testenv.SkipShort(t, "Chromium against an impostor")
	for _, u := range r5Users {
		for _, proof := range r5cModes("own", "replayed") {
			t.Run(u.name+"/"+proof, func(t *testing.T) {
				asNobody(t)
				env := newR5Env(t, u)
				var sid string
				env.b.js(t, &sid, r5cPageSetup)
				extra := []string{r5cSessionEnv + "=" + sid}
				if proof == "replayed" {
					extra = append(extra, r5cProofEnv+"="+r5cProof(t, env.b, env.core.URL))
				}
				heapBefore := r5cHeap(t, env.b)
				env.core.Stop(t)
				peek, stop := r5cImpostor(t, nobody, env.core.Addr, "flood", extra...)
				env.b.js(t, nil, "window.r5cOnly = "+strconv.Quote(os.Getenv("PEDELEC_E2E_R5C_CLIENT"))+";\n"+r5cTryCreate)
				testenv.Await(t, 90*time.Second, "the flood to end", func() bool { return strings.Count(peek(), "SENT ") >= 2 })
				heapAfter := r5cHeap(t, env.b)
				st := env.state(t)
				received := stop()
				t.Logf("Core as %s, %s proof: heap %.1f MB -> %.1f MB; trusted %+v; none %+v; the impostor:\n%s", u.name, proof, heapBefore/1e6, heapAfter/1e6, st.Tries["trusted"], st.Tries["none"], received)
				if len(st.Ran) != 0 || len(st.Chats) != 0 || len(st.Ended) != 0 || st.Status == "ended" {
					t.Errorf("the impostor reached the page's session: ran %v, chats %v, ended %v, status %s", st.Ran, st.Chats, st.Ended, st.Status)
				}
				if try := st.Tries["trusted"]; try == nil || try.Code != "CORE_NOT_AUTHENTIC" {
					t.Errorf("the trusting client against the flood: %+v", try)
				}
				if strings.Contains(received, "resume_session") || strings.Contains(received, "TOOL_MARKER_R5C\\\" ") {
					t.Errorf("the impostor received the trusting page's requests:\n%.3000s", received)
				}
				// The page kept what it could not route: 8 s of a flood is
				// hundreds of MB; a bounded page keeps a few MB of it.
				if grew := heapAfter - heapBefore; grew > 64e6 {
					t.Errorf("the page's heap grew by %.0f MB under the flood", grew/1e6)
				}
				env.comesBack(t)
			})
		}
	}
}

// r5cHeap is the page's JavaScript heap in use after a full collection.
func r5cHeap(t *testing.T, b *browser) float64 {
	t.Helper()
	if _, err := chromedp.Call(b.ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	heap, err := chromedp.Call(b.ctx, cdpruntime.GetHeapUsage, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	return heap.UsedSize
}

// An impostor of another user that completes the upgrade and closes at
// once, every time: the page's reconnect backs off (it does not spin), no
// request reaches it, and the session is back with the real Core.
func TestBrowserFlappingImpostorIsRetriedWithBackoff(t *testing.T) {
	testenv.SkipShort(t, "Chromium against an impostor")
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			asNobody(t)
			env := newR5Env(t, u)
			env.b.js(t, nil, r5cPageSetup)
			env.core.Stop(t)
			_, stop := r5cImpostor(t, nobody, env.core.Addr, "flap")
			time.Sleep(15 * time.Second)
			received := stop()
			n := strings.Count(received, "UPGRADE ")
			t.Logf("Core as %s: %d upgrades in 15 s", u.name, n)
			// Backoff from 200 ms to 2 s: about a dozen tries in 15 s; a
			// page that spins makes hundreds.
			if n == 0 || n > 60 {
				t.Errorf("the page reconnected %d times in 15 s", n)
			}
			if strings.Contains(received, "WS ") {
				t.Errorf("the impostor received messages:\n%.3000s", received)
			}
			st := env.state(t)
			if len(st.Ran) != 0 || len(st.Chats) != 0 || len(st.Ended) != 0 || st.Status == "ended" {
				t.Errorf("the impostor reached the page's session: ran %v, chats %v, ended %v, status %s", st.Ran, st.Chats, st.Ended, st.Status)
			}
			env.comesBack(t)
		})
	}
}
