package e2e

import (
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/coreauth"
)

// A page remembers the key of the Core that approved it (its first
// session) and, once Core is down and another user's program holds its
// port, refuses that program with CORE_NOT_AUTHENTIC before it sends a
// single request: the impostor gets the WebSocket upgrade (with the page's
// nonce) and nothing else, not the tools of the createSession the page
// tried (issue 35).
func TestBrowserRefusesAnImpostorCore(t *testing.T) {
	asNobody(t)
	env := newSDKEnv(t)
	key, err := coreauth.PublicKey(env.core.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	var stored string
	env.b.js(t, &stored, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec();
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
await session.end();
await h.sleep(100);
return localStorage.getItem("pedelec:core-key:" + new URL(pedelec.url).host);
`)
	if stored != key {
		t.Fatalf("the page remembered %q, want Core's key %q", stored, key)
	}

	env.core.Stop(t)
	stop := impostor(t, nobody, env.core.Addr)
	var got struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	env.b.js(t, &got, `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();
const t = defineTool({ name: "transfer_funds", description: "TOOL_MARKER_789", argsSchema: { type: "object", properties: {} }, handler: () => ({ sent: true }) });
try {
  await pedelec.createSession({ provider: "script", skills: { guidance: "GUIDANCE_MARKER", tools: [t] } });
  return { code: "CREATED", message: "" };
} catch (e) {
  return { code: e.code, message: e.message };
}
`)
	received := stop()
	t.Logf("the page: %s: %s", got.Code, got.Message)
	if got.Code != "CORE_NOT_AUTHENTIC" || !strings.Contains(got.Message, "another key") {
		t.Errorf("createSession against the impostor: %s %s", got.Code, got.Message)
	}
	if !strings.Contains(received, "GET /ws?") {
		t.Fatalf("the page never reached the impostor:\n%.2000s", received)
	}
	for _, secret := range []string{"TOOL_MARKER_789", "GUIDANCE_MARKER", "transfer_funds", "create_session"} {
		if strings.Contains(received, secret) {
			t.Errorf("the impostor received %s:\n%.3000s", secret, received)
		}
	}
	if n := strings.Count(received, "WS "); n != 0 {
		t.Errorf("the impostor received %d WebSocket messages", n)
	}
}
