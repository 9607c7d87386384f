package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The fifth review (e): the SDK in a sandboxed frame (an opaque origin,
// "null", with no storage) and in a third-party frame (storage partitioned
// by the top-level site), with Core as root and as a normal user.
//
//   - The sandboxed frame fails at once with a clear code: Core refuses
//     the origin "null" (no one could approve it), and it is not let in by
//     any --allow-origin pattern, even "*". The SDK says the origin is
//     null, not that its URL's origin (allowed already) should be allowed.
//   - The third-party frame is its origin's page, with storage of its own:
//     it does not see the key the same origin stored at the top level, so
//     it trusts Core on first use again, and works.
//   - Neither gets a session of another partition's page by anything the
//     SDK shares.
type frameResult struct {
	Name      string          `json:"name"`
	Origin    string          `json:"origin"`
	Storage   string          `json:"storage"`
	SessionID string          `json:"sessionId"`
	Resumed   string          `json:"resumed"`
	Resume    json.RawMessage `json:"resume"`
	Create    json.RawMessage `json:"create"`
	Load      json.RawMessage `json:"load"`
	Key       *string         `json:"key"`
	KeyBefore *string         `json:"keyBefore"`
}

func TestBrowserSDKInSandboxedAndThirdPartyFrames(t *testing.T) {
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			b := browserAs(t, u.uid)
			app := appServer(t)
			port := app.URL[strings.LastIndex(app.URL, ":")+1:]
			first := "http://127.0.0.1:" + port // the app's origin, allowed
			top := "http://localhost:" + port   // another site, loopback too
			core := serveAs(t, u.uid, first)
			key := core.Key(t)

			// The app's own page at the top level: a session, Core's key kept.
			b.open(t, fmt.Sprintf("%s/frame.html?name=top&core=%s", first, url.QueryEscape(core.URL)), "ready")
			var own frameResult
			b.js(t, &own, `return window.result`)
			t.Logf("top level: %+v key=%v", own, deref(own.Key))
			if own.SessionID == "" || deref(own.Key) != key {
				t.Fatalf("the app's own page: %+v", own)
			}

			// The same page framed by another site: sandboxed (opaque
			// origin), sandboxed with its origin kept, and plain.
			frame := func(name, extra string) string {
				return fmt.Sprintf("%s/frame.html?name=%s&core=%s&resume=%s%s", first, name, url.QueryEscape(core.URL), own.SessionID, extra)
			}
			q := url.Values{}
			for _, f := range []struct{ name, sandbox string }{
				{"sandboxed", "allow-scripts"},
				{"sandboxed-same-origin", "allow-scripts allow-same-origin"},
				{"third-party", "-"},
			} {
				q.Add("frame", frame(f.name, ""))
				q.Add("sandbox", f.sandbox)
			}
			b.open(t, top+"/top.html?"+q.Encode(), "ready")
			b.waitJS(t, 3*time.Minute, `window.results.length >= 3`, "the three frames' results")
			var got []struct {
				From string      `json:"from"`
				Data frameResult `json:"data"`
			}
			b.js(t, &got, `return window.results`)
			for _, r := range got {
				d := r.Data
				t.Logf("%s (from %s): origin=%s storage=%s session=%q resumed=%q resume=%s create=%s load=%s key=%v (before connecting: %v)",
					d.Name, r.From, d.Origin, d.Storage, d.SessionID, d.Resumed, d.Resume, d.Create, d.Load, deref(d.Key), deref(d.KeyBefore))
				switch d.Name {
				case "sandboxed":
					if d.Origin != "null" {
						t.Errorf("the sandboxed frame's origin is %q, want null", d.Origin)
					}
					if d.SessionID != "" || d.Resumed != "" {
						t.Errorf("the sandboxed frame (origin null) got a session: %+v", d)
					}
					for _, raw := range []json.RawMessage{d.Create, d.Resume} {
						if len(raw) == 0 {
							continue
						}
						var e struct {
							Code, Message string
							Details       struct{ Origin string }
						}
						_ = json.Unmarshal(raw, &e)
						if e.Code != "ORIGIN_NOT_ALLOWED" {
							t.Errorf("the sandboxed frame failed without a clear code: %s", raw)
						}
						// Its origin is null, which nothing allows: telling the
						// developer to allow its URL's origin (allowed already)
						// sends them to a fix that does nothing.
						if e.Details.Origin != "null" || strings.Contains(e.Message, "--allow-origin "+first) {
							t.Errorf("the sandboxed frame is told to allow %s, not that its origin is null: %s", first, raw)
						}
					}
				case "sandboxed-same-origin", "third-party":
					// Its origin's page, in the partition of the top site:
					// not the top-level page's storage.
					if d.SessionID == "" {
						t.Errorf("%s: no session: %+v", d.Name, d)
					}
					if deref(d.Key) != key {
						t.Errorf("%s: remembers %v, want Core's key", d.Name, deref(d.Key))
					}
				}
			}

			// Core's allowlist and the opaque origin: "null" is refused
			// even by --allow-origin '*'.
			star := serveAs(t, u.uid, "*")
			for _, c := range []*r5Core{core, star} {
				status := dialWithOrigin(t, u.uid, c.Addr, "null")
				t.Logf("Origin: null against Core allowing %s: %s", map[bool]string{true: "*", false: first}[c == star], status)
				if status == "101" {
					t.Errorf("Core let a WebSocket of origin null in")
				}
			}
		})
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// dialWithOrigin opens Core's page WebSocket with the given Origin, as
// Core's user (a normal user's Core refuses root's connections), and
// returns the HTTP status it got.
func dialWithOrigin(t *testing.T, uid, addr, origin string) string {
	t.Helper()
	if uid != "" {
		// As Core's user: this test binary's peer check is the whole
		// point of a normal user's Core, so ask with curl as that user.
		args := append(asUser(t, uid), "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10",
			"-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H", "Sec-WebSocket-Version: 13",
			"-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "-H", "Origin: "+origin, "http://"+addr+"/ws")
		out, _ := exec.Command(args[0], args[1:]...).Output()
		return string(out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://"+addr+"/ws", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
	if err == nil {
		c.CloseNow()
		return "101"
	}
	if resp != nil {
		return fmt.Sprint(resp.StatusCode)
	}
	return err.Error()
}
