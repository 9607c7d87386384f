package e2e

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Issue 26 in Chromium: a real SDK page whose handler waits long and
// reports progress with ctx.progress. The agent's `tool-call` (the real
// binary, with a short budget) hands the call over with exit 3; the
// command it names waits for the same call, prints the handler's progress
// on stderr, and gets the result once the handler returns; the page's
// onStatus saw each report it sent.
func TestBrowserLongCallHandedOverWithProgress(t *testing.T) {
	env := newSDKEnv(t)
	b := env.b
	var sessionID string
	b.js(t, &sessionID, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec();
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [
  { name: "hold", description: "Keeps the agent's turn open until the test lets go.", argsSchema: { type: "object", properties: {}, required: [] } },
  { name: "upload", description: "Uploads a file; waits for the user.", argsSchema: { type: "object", properties: {}, required: [] }, timeoutMs: 60000 },
] } });
window.session = session;
window.progressSeen = [];
session.onStatus((status, ctx) => { if (ctx.progress) window.progressSeen.push(ctx.progress); });
let releaseHold, releaseUpload;
const hold = new Promise((r) => (releaseHold = r));
window.releaseHold = releaseHold;
const upload = new Promise((r) => (releaseUpload = r));
window.releaseUpload = releaseUpload;
session.onTool("hold", async () => { await hold; return { held: true }; });
session.onTool("upload", async (args, ctx) => {
  let n = 0;
  const timer = setInterval(() => { n++; ctx.progress({ progress: n, total: 100, message: "uploading part " + n }); }, 20);
  await upload;
  clearInterval(timer);
  return { uploaded: true, parts: n };
});
window.turn = session.sendTurn("call hold {}");
return session.sessionId;
`)
	var pids []int
	testenv.Await(t, 10*time.Second, "the script agent to run", func() bool {
		pids = testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + sessionID)
		return len(pids) > 0
	})
	agentEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for _, kv := range processEnv(t, pids[0]) {
		if strings.HasPrefix(kv, "PEDELEC_") && !strings.HasPrefix(kv, wire.EnvCallBudgetMs+"=") {
			agentEnv = append(agentEnv, kv)
		}
	}
	a := &agentShell{t: t, env: agentEnv}

	first := a.run("800", "tool-call", "--thread-id", sessionID, "upload", "{}")
	m := agentMove(t, first)
	if first.exit != wire.ExitPending || m.kind != "run" {
		t.Fatalf("first tool-call: exit %d %s (stderr %q)", first.exit, first.stdout, first.stderr)
	}
	if !regexp.MustCompile(`(?m)^pedelec: progress \d+/100: uploading part \d+$`).MatchString(first.stderr) {
		t.Fatalf("the first command's stderr has no progress line: %q", first.stderr)
	}
	cmd, out, errb := a.start("30000", m.command[1:]...)
	testenv.Await(t, 10*time.Second, "progress on the waiting command's stderr", func() bool {
		return strings.Contains(errb.String(), "pedelec: progress ")
	})
	b.js(t, nil, `window.releaseUpload(); return null;`)
	waited := finish(t, cmd, out, errb)
	var res wire.AgentResult
	if waited.exit != 0 || json.Unmarshal([]byte(waited.stdout), &res) != nil || !res.OK || !strings.Contains(string(res.Result), `"uploaded":true`) {
		t.Fatalf("--wait: exit %d %s", waited.exit, waited.stdout)
	}
	var seen []struct {
		Progress      float64 `json:"progress"`
		Total         float64 `json:"total"`
		Message       string  `json:"message"`
		ToolRequestID string  `json:"toolRequestId"`
		Tool          string  `json:"tool"`
	}
	b.js(t, &seen, `return window.progressSeen;`)
	if len(seen) < 2 || seen[0].Tool != "upload" || seen[0].Total != 100 || !strings.HasPrefix(seen[0].Message, "uploading part") {
		t.Fatalf("onStatus saw %+v", seen)
	}
	// ~0.8 s + the wait at 50 reports a second: the SDK sent at most 4/s.
	if len(seen) > 40 {
		t.Fatalf("onStatus saw %d reports: the SDK did not coalesce them", len(seen))
	}
	b.js(t, nil, `window.releaseHold(); await window.turn; await window.session.end(); return null;`)
}
