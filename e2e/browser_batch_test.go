package e2e

// Batched messages (docs/protocol.md) in real Chromium: the SDK asks for
// them, Core greets it and sends frames queued together as one array, and
// the page still gets every event once, in seq order, with 8 calls at once;
// the results of handlers that finish together leave as one array.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestBrowserBatchedMessages(t *testing.T) {
	env := newSDKEnv(t)
	b := env.b
	var got struct {
		SessionID string        `json:"sessionId"`
		Runs      []int         `json:"runs"`
		Saw       []agentCall   `json:"saw"`
		Statuses  []statusEvent `json:"statuses"`
		Errors    []any         `json:"errors"`
		Status    string        `json:"status"`
	}
	b.js(t, &got, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec();
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [
  { name: "echo", description: "Answers with its arguments.", argsSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } },
] } });
const runs = [];
let release;
const allIn = new Promise((r) => (release = r));
session.onTool("echo", async (args) => {
  runs.push(args.n);
  if (runs.length === 8) release();
  await allIn; // the 8 results are then ready in one task
  return { n: args.n };
});
const rec = h.record(session);
const script = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => "&call echo " + JSON.stringify({ n })).join("\n");
const saw = h.agentSaw((await session.sendTurn(script)).text);
const status = session.getStatus();
await session.end();
return { sessionId: session.sessionId, runs: runs.sort((a, b) => a - b), saw, statuses: rec.statuses, errors: rec.errors, status };
`)
	if len(got.Runs) != 8 {
		t.Fatalf("the handler ran for %v, want each of the 8 calls once", got.Runs)
	}
	for i, n := range got.Runs {
		if n != i {
			t.Fatalf("the handler ran for %v, want each of the 8 calls once", got.Runs)
		}
	}
	if len(got.Saw) != 8 {
		t.Fatalf("the agent saw %d results: %+v", len(got.Saw), got.Saw)
	}
	for _, c := range got.Saw {
		if !c.OK {
			t.Fatalf("a call failed: %+v", c)
		}
	}
	if len(got.Errors) > 0 || got.Status != "idle" {
		t.Fatalf("errors %v, status after the turn %q", got.Errors, got.Status)
	}

	// What crossed the socket: the hello first, arrays, and every event of
	// the session once, in seq order.
	var msgs []string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		msgs = b.receivedMessages()
		if strings.Contains(strings.Join(msgs, "\n"), `"event":"ended"`) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var frames []json.RawMessage
	arrays := 0
	for _, m := range msgs {
		if strings.HasPrefix(m, "[") {
			var elems []json.RawMessage
			if err := json.Unmarshal([]byte(m), &elems); err != nil {
				t.Fatalf("array message %q: %v", m, err)
			}
			arrays++
			frames = append(frames, elems...)
			continue
		}
		frames = append(frames, json.RawMessage(m))
	}
	if len(frames) == 0 || !strings.Contains(string(frames[0]), `"type":"hello"`) {
		t.Fatalf("first frame is not the hello: %.200s", msgs)
	}
	if arrays == 0 {
		t.Fatalf("no array message among %d messages", len(msgs))
	}
	seq := int64(0)
	for _, f := range frames {
		var ev struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
			Seq       int64  `json:"seq"`
		}
		json.Unmarshal(f, &ev)
		if ev.Type != "event" || ev.SessionID != got.SessionID {
			continue
		}
		if ev.Seq != seq+1 {
			t.Fatalf("event seq %d after %d: every event once, in order, was expected", ev.Seq, seq)
		}
		seq = ev.Seq
	}
	if seq < 8*2 {
		t.Fatalf("only %d events for a turn of 8 calls", seq)
	}

	// The 8 results were ready in one task: they left as one array.
	batchedSubmits := 0
	for _, m := range b.sentFrames() {
		if strings.HasPrefix(m, "[") && strings.Count(m, `"submit_tool_result"`) > 1 {
			batchedSubmits += strings.Count(m, `"submit_tool_result"`)
		}
	}
	if batchedSubmits != 8 {
		t.Fatalf("%d of the 8 results left in arrays; sent: %v", batchedSubmits, b.sentFrames())
	}
}
