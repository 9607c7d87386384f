package e2e

// Sessions survive Core's restarts and the page's lost connections, in
// real Chromium, with no code of the page's own: the SDK reconnects,
// resumes, and Core replays what the page missed.

import (
	"strings"
	"testing"
	"time"
)

func TestBrowserSessionSurvivesCoreRestart(t *testing.T) {
	for _, how := range []string{"kill -9", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			env := newSDKEnv(t)
			b := env.b
			var first string
			b.js(t, &first, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec({ url: "`+env.core.WSURL+`" });
window.s = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
window.rec = h.record(window.s);
return (await window.s.sendTurn("say the first message")).text;
`)
			if first != "the first message\n" {
				t.Fatalf("first turn: %q", first)
			}
			if how == "kill -9" {
				env.core.Kill()
			} else {
				env.core.Stop(t)
			}
			b.waitJS(t, 10*time.Second, "window.s.isReconnecting()", "the page to notice Core is gone")
			env.core.Restart(t)
			b.waitJS(t, 30*time.Second, `!window.s.isReconnecting() && window.s.getStatus() === "idle"`, "the session to be resumed")
			var got struct {
				Text     string   `json:"text"`
				Statuses []string `json:"statuses"`
				Errors   []struct {
					Code    string         `json:"code"`
					Details map[string]any `json:"details"`
				} `json:"errors"`
				Ended []string `json:"ended"`
			}
			b.js(t, &got, `
const { text } = await window.s.sendTurn("history");
return { text, statuses: window.rec.statuses.map((e) => e.previousStatus + "->" + e.status + "(" + e.source + ")"), errors: window.rec.errors, ended: window.rec.ended };
`)
			if !strings.Contains(got.Text, "the first message") {
				t.Fatalf("the agent's next turn lacks the first turn's history: %q", got.Text)
			}
			path := strings.Join(got.Statuses, " ")
			if !strings.Contains(path, "idle->error(sdk) error->idle(core)") || len(got.Ended) != 0 {
				t.Fatalf("statuses across the restart: %s; ended %v", path, got.Ended)
			}
			if len(got.Errors) == 0 || got.Errors[0].Code != "CORE_UNREACHABLE" || got.Errors[0].Details["reconnecting"] != true {
				t.Fatalf("errors: %+v", got.Errors)
			}
		})
	}
}

// A page that loses its connection mid-turn (Core stays up) gets every
// chat delta of the turn once, in order, and the turn's result.
func TestBrowserDisconnectMidTurnLosesNoChat(t *testing.T) {
	env := newSDKEnv(t)
	proxy := newCutProxy(t, env.core.Addr)
	b := env.b
	b.js(t, nil, `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec({ url: "`+strings.Replace(proxy.URL(), "http", "ws", 1)+`/ws" });
const slow = defineTool({ name: "slow_tool", description: "Never answers in time.", argsSchema: { type: "object", properties: {}, required: [] }, timeoutMs: 300,
  handler: async () => { window.called = true; await h.sleep(5000); return { late: true }; } });
window.s = await pedelec.createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [slow] } });
window.rec = h.record(window.s);
window.turn = window.s.sendTurn("say one\ncall slow_tool\nsay two\nsay three\nsay four");
window.turn.then((r) => (window.result = r), (e) => (window.failure = h.errorOf(e)));
`)
	b.waitJS(t, 20*time.Second, "window.called === true", "the tool call to reach the page")
	proxy.Cut(1500 * time.Millisecond) // Core times the call out and goes on meanwhile
	b.waitJS(t, 30*time.Second, "window.result !== undefined || window.failure !== undefined", "the turn to end")
	var got struct {
		Deltas  []string       `json:"deltas"`
		Text    string         `json:"text"`
		Failure map[string]any `json:"failure"`
		Errors  []string       `json:"errors"`
	}
	b.js(t, &got, `return { deltas: window.rec.chats.map((c) => c.delta), text: window.result?.text ?? "", failure: window.failure ?? null, errors: window.rec.errors.map((e) => e.code) };`)
	if got.Failure != nil {
		t.Fatalf("the turn failed across the disconnect: %+v", got.Failure)
	}
	if len(got.Deltas) != 5 || got.Deltas[0] != "one\n" || !strings.Contains(got.Deltas[1], "TOOL_TIMEOUT") ||
		got.Deltas[2] != "two\n" || got.Deltas[3] != "three\n" || got.Deltas[4] != "four\n" || got.Text != strings.Join(got.Deltas, "") {
		t.Fatalf("chat across the disconnect (each delta once, in order): %q, text %q", got.Deltas, got.Text)
	}
	if len(got.Errors) == 0 || got.Errors[0] != "CORE_UNREACHABLE" {
		t.Fatalf("errors: %v", got.Errors)
	}
}
