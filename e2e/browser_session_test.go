package e2e

// The session's life in real Chromium: the status path the seeds describe,
// one turn at a time, concurrent calls, prepare, end, resume after a
// reload, and a page whose origin Core refuses.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

type statusEvent struct {
	Status         string `json:"status"`
	PreviousStatus string `json:"previousStatus"`
	Source         string `json:"source"`
	WaitingOn      []struct {
		Tool string `json:"tool"`
	} `json:"waitingOn"`
}

func TestBrowserSessionLifecycle(t *testing.T) {
	env := newSDKEnv(t)
	b := env.b

	t.Run("the status path of a turn with a tool call, deduplicated, with its source", func(t *testing.T) {
		var got struct {
			Statuses []statusEvent `json:"statuses"`
			During   string        `json:"during"`
			Busy     string        `json:"busy"`
			After    string        `json:"after"`
			Chats    int           `json:"chats"`
			Text     string        `json:"text"`
		}
		b.js(t, &got, `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();
let during = "";
const slow = defineTool({
  name: "slow_tool", description: "Waits a little.", argsSchema: { type: "object", properties: {}, required: [] },
  handler: async () => { during = session.getStatus(); await h.sleep(200); return { ok: true }; },
});
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [slow] } });
const rec = h.record(session);
const turn = session.sendTurn("say starting\ncall slow_tool {}\nsay done");
let busy = "";
try { await session.sendText("say second"); } catch (e) { busy = e.code; }
const { text } = await turn;
const after = session.getStatus();
await session.end();
return { statuses: rec.statuses, during, busy, after, chats: rec.chats.length, text };
`)
		var path []string
		for _, s := range got.Statuses {
			path = append(path, fmt.Sprintf("%s->%s(%s)", s.PreviousStatus, s.Status, s.Source))
			if s.Status == s.PreviousStatus {
				t.Errorf("duplicate status event %+v", s)
			}
		}
		want := "idle->running(sdk) running->waiting_tool_result(sdk|core) waiting_tool_result->running(core) running->idle(core) idle->ended(sdk)"
		// The page may learn of the call (tool_call) before Core's status
		// event: either may report waiting_tool_result first.
		gotPath := strings.Replace(strings.Join(path, " "), "waiting_tool_result(core)", "waiting_tool_result(sdk|core)", 1)
		gotPath = strings.Replace(gotPath, "waiting_tool_result(sdk)", "waiting_tool_result(sdk|core)", 1)
		if gotPath != want {
			t.Errorf("status path:\n got %s\nwant %s", strings.Join(path, " "), want)
		}
		if len(got.Statuses) > 1 && (len(got.Statuses[1].WaitingOn) != 1 || got.Statuses[1].WaitingOn[0].Tool != "slow_tool") {
			t.Errorf("waiting_tool_result should name the tool: %+v", got.Statuses[1])
		}
		if got.During != "waiting_tool_result" || got.Busy != "SESSION_BUSY" || got.After != "idle" {
			t.Errorf("during the handler %q, a second sendText %q, after the turn %q", got.During, got.Busy, got.After)
		}
		if got.Chats != 3 || !strings.HasPrefix(got.Text, "starting\n") || !strings.HasSuffix(got.Text, "done\n") {
			t.Errorf("chat: %d deltas, text %q", got.Chats, got.Text)
		}
	})

	t.Run("concurrent calls: waiting until the last one settles", func(t *testing.T) {
		var got struct {
			MaxWaiting int           `json:"maxWaiting"`
			Saw        []agentCall   `json:"saw"`
			Statuses   []statusEvent `json:"statuses"`
		}
		b.js(t, &got, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec();
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [
  { name: "wait_a", description: "Waits.", argsSchema: { type: "object" } },
  { name: "wait_b", description: "Waits.", argsSchema: { type: "object" } },
] } });
let maxWaiting = 0, arrived = 0;
session.onTool(async (tool) => {
  arrived++;
  // Each call holds until both are in, so they overlap however slowly
  // the agent's two processes start.
  await h.waitFor(() => arrived === 2, "both calls", 15000);
  maxWaiting = Math.max(maxWaiting, session.getWaitingOn().length);
  await h.sleep(tool === "wait_a" ? 200 : 50);
  return { tool };
});
const rec = h.record(session);
const saw = h.agentSaw((await session.sendTurn("&call wait_a {}\n&call wait_b {}")).text);
await session.end();
return { maxWaiting, saw, statuses: rec.statuses };
`)
		if len(got.Saw) != 2 || got.Saw[0].result(t)["tool"] != "wait_a" || got.Saw[1].result(t)["tool"] != "wait_b" {
			t.Fatalf("the agent saw %+v", got.Saw)
		}
		if got.MaxWaiting != 2 {
			t.Errorf("getWaitingOn() never showed both calls (max %d)", got.MaxWaiting)
		}
		waits := 0
		for _, s := range got.Statuses {
			if s.Status == "waiting_tool_result" {
				waits++
			}
		}
		if waits != 1 {
			t.Errorf("one waiting_tool_result spell for two overlapping calls, got %d: %+v", waits, got.Statuses)
		}
	})

	t.Run("prepare delivers no chat; end ends; a later sendText is SESSION_ENDED", func(t *testing.T) {
		var got struct {
			Chats   int      `json:"chats"`
			Ended   []string `json:"ended"`
			After   string   `json:"after"`
			Status  string   `json:"status"`
			Prepare bool     `json:"prepare"`
		}
		b.js(t, &got, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec();
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
const rec = h.record(session);
const p = await session.prepare();
const again = await session.prepare(); // idempotent: resolves at once
await session.end();
await session.end(); // twice is fine
let after = "";
try { await session.sendText("say hi"); } catch (e) { after = e.code; }
return { chats: rec.chats.length, ended: rec.ended, after, status: session.getStatus(), prepare: p === undefined && again === undefined };
`)
		if got.Chats != 0 || !got.Prepare || len(got.Ended) != 1 || got.Ended[0] != "end_session" || got.After != "SESSION_ENDED" || got.Status != "ended" {
			t.Errorf("%+v", got)
		}
	})

	t.Run("resume after a reload: a pending call is delivered again to the new page", func(t *testing.T) {
		var id string
		b.js(t, &id, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec();
const session = await pedelec.createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [
  { name: "ask", description: "Asks the user.", argsSchema: { type: "object" }, timeoutMs: 30000 },
] } });
session.onTool("ask", () => new Promise(() => {})); // this page never answers
void session.sendText("call ask {}\nsay after the reload").catch(() => {});
await h.waitFor(() => session.getStatus() === "waiting_tool_result", "the call");
return session.sessionId;
`)
		b.open(t, fmt.Sprintf("%s/harness.html?core=%s", env.app.URL, env.core.URL), "ready")
		var got struct {
			Redelivered bool   `json:"redelivered"`
			Text        string `json:"text"`
			Status      string `json:"status"`
		}
		b.js(t, &got, `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();
let redelivered = false;
const ask = defineTool({ name: "ask", description: "Asks the user.", argsSchema: { type: "object" },
  handler: (_a, ctx) => { redelivered = ctx.redelivered; return { answer: "yes" }; } });
const session = await pedelec.resumeSession(`+"`"+id+"`"+`, { tools: [ask] });
let text = "";
session.onChat((delta) => { text += delta; });
await h.waitFor(() => text.includes("after the reload"), "the rest of the turn");
await h.waitFor(() => session.getStatus() === "idle", "idle");
const status = session.getStatus();
await session.end();
return { redelivered, text, status };
`)
		if !got.Redelivered || !strings.Contains(got.Text, `{"ok":true,"result":{"answer":"yes"}}`) {
			t.Errorf("after resume: redelivered=%v, chat %q", got.Redelivered, got.Text)
		}
	})
}

// A page of an origin nobody approved is never let in by itself: its
// sensitive calls wait for the user (issue 22), and with nobody deciding
// they fail with APPROVAL_TIMEOUT, naming the origin; Core's log says how
// to approve it. (Approving and rejecting: browser_approvals_test.go.)
func TestBrowserRefusedOrigin(t *testing.T) {
	b := newBrowser(t)
	app := appServer(t)
	core := testenv.Serve(t, []string{"--origin-approval-timeout", "1s"}) // no --allow-origin
	b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")
	var got struct {
		Code    string `json:"code"`
		Origin  string `json:"origin"`
		Create  string `json:"create"`
		Created bool   `json:"created"`
	}
	b.js(t, &got, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec({ onApprovalPending: () => {} });
let e2, created = false;
// listProviders asks for nothing: it answers at once, every provider
// unavailable and why (it used to ask for approval and wait).
const providers = await pedelec.listProviders();
const unavailable = providers.length > 0 && providers.every((p) => !p.available && p.error);
try { await pedelec.createSession({ skills: { guidance: "g", tools: [] } }); created = true; } catch (e) { e2 = e; }
return { code: unavailable ? "ALL_UNAVAILABLE" : JSON.stringify(providers), origin: e2?.details?.origin, create: e2?.code, created };
`)
	if got.Code != "ALL_UNAVAILABLE" || got.Create != "APPROVAL_TIMEOUT" || got.Created {
		t.Errorf("an unapproved page saw %+v", got)
	}
	if !strings.Contains(core.Logs(), "pedelec approve "+app.URL) {
		t.Errorf("Core's log should say how to approve the site:\n%s", core.Logs())
	}
}
