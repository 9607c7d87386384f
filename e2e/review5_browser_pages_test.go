package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The fifth hostile review: hostile pages in real Chromium against the
// hello sent alone and the page's trust in Core's key, with Core as root
// and as a normal user (Chromium as that user).

// A page that does not wait for the hello: its requests (one alone, then
// an array) leave in the socket's open event, before a byte of Core's. The
// hello is still the socket's first message, alone, with Core's proof of
// the page's nonce, and every request is answered. A proof parameter that
// is not a nonce (too long, markup) gets a hello without a proof, not an
// error and not Core's signature over it.
func TestBrowserPageRacingTheHello(t *testing.T) {
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			env := newR5Env(t, u)
			key := env.core.Key(t)
			var got []struct {
				Proof    string   `json:"proof"`
				First    string   `json:"first"`
				Messages []string `json:"messages"`
			}
			env.b.js(t, &got, `
const url = "ws://`+env.core.Addr+`/ws?batch=1&proof=";
const out = [];
for (const proof of ["`+strings.Repeat("n", 43)+`", "x".repeat(300), "<img src=x onerror=alert(1)>", ""]) {
  const ws = new WebSocket(url + encodeURIComponent(proof));
  const messages = [];
  ws.onmessage = (ev) => messages.push(ev.data);
  await new Promise((resolve, reject) => {
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "request", id: 1, method: "list_providers", params: {} }));
      ws.send(JSON.stringify([2, 3, 4].map((id) => ({ type: "request", id, method: "list_providers", params: {} }))));
      resolve();
    };
    ws.onerror = () => reject(new Error("the socket failed"));
  });
  await h.waitFor(() => messages.join("").split('"type":"response"').length - 1 >= 4, "the four answers", 20000);
  ws.close();
  out.push({ proof, first: messages[0], messages });
}
return out;
`)
			for i, g := range got {
				var hello map[string]any
				if err := json.Unmarshal([]byte(g.First), &hello); err != nil || hello["type"] != "hello" {
					t.Errorf("proof %.20q: the first message is not a hello alone: %.300s", g.Proof, g.First)
					continue
				}
				if i == 0 {
					if hello["coreKey"] != key || hello["coreProof"] == nil {
						t.Errorf("a good nonce: the hello carries no proof by Core's key: %s", g.First)
					}
				} else if hello["coreProof"] != nil {
					t.Errorf("proof %.20q: Core signed what is not a nonce: %s", g.Proof, g.First)
				}
				if n := strings.Count(strings.Join(g.Messages, ""), `"hello"`); n != 1 {
					t.Errorf("proof %.20q: %d hellos", g.Proof, n)
				}
			}
		})
	}
}

// Two clients of one page with no key yet race trust on first use against
// the real Core: both are let in, and the key kept is Core's.
func TestBrowserTwoClientsRaceTrustOnFirstUse(t *testing.T) {
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			env := newR5Env(t, u)
			var stored string
			env.b.js(t, &stored, `
const { Pedelec } = window.sdk;
localStorage.clear();
const a = new Pedelec(), b = new Pedelec();
const [sa, sb] = await Promise.all([a, b].map((p) => p.createSession({ provider: "script", skills: { guidance: "g", tools: [] } })));
await Promise.all([sa.end(), sb.end()]);
return localStorage.getItem("pedelec:core-key:" + new URL(a.url).host);
`)
			if stored != env.core.Key(t) {
				t.Errorf("two clients racing trust on first use kept %q, want Core's key", stored)
			}
		})
	}
}

// A page of another allowed origin cannot use a session of the first's,
// whatever it knows of it: resume, send_text and end_session with its id
// are refused, and the first origin's page resumes it afterwards. Nor can
// it reach the first origin's stored key: storage is the origin's.
func TestBrowserOtherOriginCannotUseASession(t *testing.T) {
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			b := browserAs(t, u.uid)
			app1, app2 := appServer(t), appServer(t)
			core := serveAs(t, u.uid, app1.URL, "--allow-origin", app2.URL)
			b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app1.URL, core.URL), "ready")
			var sid string
			b.js(t, &sid, `
const { Pedelec } = window.sdk;
const s = await new Pedelec().createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [] } });
await h.sleep(200);
return s.sessionId;
`)
			b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app2.URL, core.URL), "ready")
			var other struct {
				Resume, SendText, End string
				Key                   any
			}
			b.js(t, &other, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec();
const code = (p) => p.then(() => "OK", (e) => e.code);
const resume = await code(pedelec.resumeSession(`+jsString(sid)+`, { tools: [] }));
const sendText = await code(pedelec.request("send_text", { sessionId: `+jsString(sid)+`, text: "call list_todos {}" }));
const end = await code(pedelec.request("end_session", { sessionId: `+jsString(sid)+` }));
return { Resume: resume, SendText: sendText, End: end, Key: localStorage.getItem("pedelec:core-key:`+core.Addr+`") };
`)
			t.Logf("the other origin: %+v", other)
			if other.Resume == "OK" || other.SendText == "OK" || other.End == "OK" {
				t.Errorf("another origin used the session: %+v", other)
			}
			b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app1.URL, core.URL), "ready")
			var status string
			b.js(t, &status, `
const s = await new window.sdk.Pedelec().resumeSession(`+jsString(sid)+`, { tools: [] });
return s.getStatus();
`)
			if status == "ended" || status == "" {
				t.Errorf("the first origin's session after the other origin's tries: %q", status)
			}
		})
	}
}

// A page that trusts no Core yet meets an impostor (another user on Core's
// port while Core is down): trust on first use, as docs/security.md says.
// The impostor gets the createSession (its tools) and its key is kept: the
// exposure the docs name, pinned here so a change to it is seen.
func TestBrowserFirstUseOfAnImpostorIsTrustOnFirstUse(t *testing.T) {
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			asNobody(t)
			env := newR5Env(t, u)
			real := env.core.Key(t)
			env.core.Stop(t)
			_, stop := r5Impostor(t, nobody, env.core.Addr, "own-key", "")
			var first struct {
				Code, Stored string
			}
			env.b.js(t, &first, `
const { Pedelec } = window.sdk;
localStorage.clear();
const p = new Pedelec();
const code = await p.createSession({ provider: "script", skills: { guidance: "g", tools: [] } }).then(() => "CREATED", (e) => e.code);
await h.sleep(200);
p.close();
return { Code: code, Stored: localStorage.getItem("pedelec:core-key:" + new URL(p.url).host) ?? "" };
`)
			received := stop()
			t.Logf("first use against the impostor: %s, kept %.16s…", first.Code, first.Stored)
			if first.Code != "CREATED" || first.Stored == "" || first.Stored == real {
				t.Fatalf("first use: %+v (real key %.16s…)", first, real)
			}
			if !strings.Contains(received, "create_session") {
				t.Errorf("trust on first use sent the impostor nothing:\n%.2000s", received)
			}
		})
	}
}

// The demo (Core's own page) against hostile values: the agent's chat
// with markup, bidi overrides and control characters, a provider named in
// the URL that does not exist or is unavailable, and the chat kept for a
// reload. Nothing becomes markup, no provider is switched and no session
// started without the user's act. Core as root and as a normal user (with
// Chromium as that user).
func TestBrowserDemoHostileValues(t *testing.T) {
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			b := browserAs(t, u.uid)
			// The demo is Core's own page: no other origin is needed.
			core := serveAs(t, u.uid, "http://127.0.0.1:1")
			demoHostileValues(t, b, core.URL)
		})
	}
}

func demoHostileValues(t *testing.T, b *browser, coreURL string) {
	for _, q := range []string{"?provider=%3Cimg%20src%3Dx%20onerror%3Dwindow.pwned%3D1%3E", "?provider=codex", "?provider=script&provider=mcp", "?provider=mcp&provider=script", "?provider=%E2%80%AEtpircs"} {
		_ = b.tryJS(nil, `try { sessionStorage.clear() } catch {}`)
		if err := b.do(30*time.Second, chromedp.Navigate(coreURL+"/"+q)); err != nil {
			t.Fatal(err)
		}
		b.waitJS(t, 15*time.Second, `document.body.dataset.demo === "ready"`, "the demo")
		// Give a session that would start on its own the time to.
		time.Sleep(time.Second)
		var st struct {
			Picked  string `json:"picked"`
			Session bool   `json:"session"`
			Imgs    int    `json:"imgs"`
			Pwned   any    `json:"pwned"`
		}
		b.js(t, &st, `return { picked: document.getElementById("provider").value, session: !!window.pedelecDemo.session, imgs: document.querySelectorAll("img").length, pwned: window.pwned ?? null };`)
		t.Logf("%s: %+v", q, st)
		want := "script"
		if strings.HasPrefix(q, "?provider=mcp") {
			want = "mcp" // the first one named, and available: preselected only
		}
		if st.Session || st.Imgs != 0 || st.Picked != want || st.Pwned != nil {
			t.Errorf("%s: %+v (want %s picked, no session, no markup)", q, st, want)
		}
	}
	load := func() {
		_ = b.tryJS(nil, `try { sessionStorage.clear() } catch {}`)
		if err := b.do(30*time.Second, chromedp.Navigate(coreURL+"/")); err != nil {
			t.Fatal(err)
		}
		b.waitJS(t, 15*time.Second, `document.body.dataset.demo === "ready"`, "the demo's provider picker")
		if err := b.do(10*time.Second, chromedp.Click("#restart", chromedp.NodeVisible)); err != nil {
			t.Fatal(err)
		}
		b.waitJS(t, 15*time.Second, `window.pedelecDemo?.session && document.getElementById("status").dataset.status === "idle"`, "the demo's session")
	}
	load()
	hostile := "say <img src=x onerror=\"window.pwned=1\"><b>bold</b> \u202eevil\u202c \u2066x\u2069 \x1b[31m \x00\x07\x08\r `<script>window.pwned=2</script>` **<i>x</i>** [a](javascript:window.pwned=3) <svg onload=window.pwned=4>"
	b.js(t, nil, `await window.pedelecDemo.send(`+jsString(hostile)+`);`)
	check := func(when string) {
		var got struct {
			Pwned    any    `json:"pwned"`
			Elements string `json:"elements"`
			Text     string `json:"text"`
			Hrefs    string `json:"hrefs"`
		}
		b.js(t, &got, `
const box = document.getElementById("messages");
const tags = new Set([...box.querySelectorAll("*")].map((e) => e.tagName.toLowerCase()));
const hrefs = [...box.querySelectorAll("[href]")].map((e) => e.getAttribute("href")).join(" ");
return { pwned: window.pwned ?? null, elements: [...tags].sort().join(","), text: box.textContent, hrefs };`)
		t.Logf("%s: elements %s", when, got.Elements)
		if got.Pwned != nil {
			t.Errorf("%s: the agent's chat ran script: %v", when, got.Pwned)
		}
		if strings.Contains(got.Hrefs, "javascript:") {
			t.Errorf("%s: the chat holds a javascript: link: %s", when, got.Hrefs)
		}
		for _, tag := range strings.Split(got.Elements, ",") {
			switch tag {
			case "div", "span", "code", "strong", "pre":
			default:
				t.Errorf("%s: the chat holds a <%s>", when, tag)
			}
		}
		if !strings.Contains(got.Text, "<img src=x") {
			t.Errorf("%s: the agent's markup is not shown as text: %q", when, got.Text)
		}
	}
	check("after the turn")
	// A reload restores the kept chat (innerHTML of what the page rendered).
	if err := b.do(30*time.Second, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	b.waitJS(t, 15*time.Second, `document.body.dataset.demo === "ready"`, "the demo after a reload")
	check("after a reload")
	// The kept session after a reload from a link naming another provider
	// (?provider=mcp, which is available): resumed as it was, not switched
	// and no other session started; then the user picks mcp: nothing starts
	// until they press New session or send.
	b.waitJS(t, 15*time.Second, `!!window.pedelecDemo.session`, "the kept session resumed")
	var before string
	b.js(t, &before, `return window.pedelecDemo.session.sessionId`)
	if err := b.do(30*time.Second, chromedp.Navigate(coreURL+"/?provider=mcp")); err != nil {
		t.Fatal(err)
	}
	b.waitJS(t, 15*time.Second, `document.body.dataset.demo === "ready"`, "the demo after a reload with ?provider=mcp")
	var kept struct {
		ID, Provider, Picked string
	}
	b.js(t, &kept, `const s = window.pedelecDemo.session; return { ID: s?.sessionId ?? "", Provider: s?.provider ?? "", Picked: document.getElementById("provider").value };`)
	t.Logf("after a reload with ?provider=mcp: %+v (before: %s)", kept, before)
	if kept.ID != before || kept.Provider != "script" || kept.Picked != "script" {
		t.Errorf("a link naming another provider changed the kept session: %+v, before %s", kept, before)
	}
	b.js(t, nil, `const p = document.getElementById("provider"); p.value = "mcp"; p.dispatchEvent(new Event("change"));`)
	time.Sleep(time.Second)
	b.js(t, &kept, `const s = window.pedelecDemo.session; return { ID: s?.sessionId ?? "", Provider: s?.provider ?? "", Picked: document.getElementById("provider").value };`)
	if kept.ID != before || kept.Provider != "script" || kept.Picked != "mcp" {
		t.Errorf("picking another provider started or switched a session by itself: %+v, before %s", kept, before)
	}
	// The kept chat itself hostile (only a script of Core's origin could
	// write it): the demo's CSP runs none of it.
	b.js(t, nil, `sessionStorage.setItem("pedelec.demo.chat", '<img src=x onerror="window.pwned=5"><svg onload="window.pwned=6"></svg><script>window.pwned=7</script>');`)
	if err := b.do(30*time.Second, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	b.waitJS(t, 15*time.Second, `document.body.dataset.demo === "ready"`, "the demo after a reload")
	time.Sleep(time.Second)
	var pwned any
	b.js(t, &pwned, `return window.pwned ?? null`)
	if pwned != nil {
		t.Errorf("a hostile kept chat ran script: %v", pwned)
	}
}
