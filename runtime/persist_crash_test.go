package runtime

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// holdCommits stops c's writer from committing, and so from handing the
// journal to the kernel when it starts a new segment: only a page
// connection's or an agent's answer's sync writes it. crashImage ends it.
func holdCommits(c *Core) { c.persist.HoldCommits() }

// crashImage stops c's persistence as kill -9 would, at this instant: the
// writer commits nothing more, what the journal had not handed to the
// kernel is lost, and later ops go nowhere. It copies what is on disk then
// (the database and the journal's segments) to a new state directory,
// for a Core to start on as after the crash; c itself runs on in memory.
func crashImage(t *testing.T, c *Core) string {
	t.Helper()
	if err := c.persist.Abandon(); err != nil {
		t.Fatal(err)
	}
	image := t.TempDir()
	entries, err := os.ReadDir(c.opts.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), persist.FileName) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.opts.StateDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(image, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return image
}

// Every call the page was given survives a crash of Core: after the
// restart each one still pending settles interrupted, once, and a late
// result for it is refused with that reason; a call answered before the
// crash is not settled again. Issue 20: with three calls pending at
// kill -9, only the first was in the database (the record was written
// when the status changed, not when a call was added), and the other two
// never settled.
func TestCrashSettlesEveryPendingCall(t *testing.T) {
	for _, answered := range []int{0, 1} {
		t.Run(fmt.Sprintf("%d answered", answered), func(t *testing.T) { crashWithThreeCalls(t, answered) })
	}
}

func crashWithThreeCalls(t *testing.T, answered int) {
	turns := make(chan *heldTurn, 4)
	held := func(o *Options) { o.Providers = provider.NewRegistry("", heldProvider{turns: turns}) }
	c1, srv1, _ := runCore(t, t.TempDir(), "", held)
	p := wspage.Dial(t, wsURL(srv1), srv1.URL)
	keep := false
	info := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &keep})
	turn := p.SendText(info.SessionID, "three calls")
	ht := <-turns
	for i := range 3 {
		callAsync(ht, "echo", fmt.Sprintf(`{"x":%d}`, i))
	}
	var ids []string
	for i := range 3 {
		ids = append(ids, toolCall(t, p, "echo", i+1).ToolRequestID)
	}
	for _, id := range ids[:answered] {
		p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: id, Result: json.RawMessage(`1`)})
		settled(t, p, id)
	}
	var last int64
	for _, e := range p.Events() {
		last = max(last, e.Seq)
	}
	image := crashImage(t, c1)
	srv1.Close() // its port, for the page's origin after the restart

	_, srv2, _ := runCore(t, image, srv1.Listener.Addr().String(), held)
	p2 := wspage.Dial(t, wsURL(srv2), srv2.URL)
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &last})
	awaitEvent(t, p2, wire.EventDone, turn, nil)
	for _, id := range ids[answered:] {
		if d := settled(t, p2, id); d.Outcome != wire.OutcomeInterrupted {
			t.Errorf("call %s settled %s after the crash, want interrupted", id, d.Outcome)
		}
		_, werr := p2.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: id, Result: json.RawMessage(`1`)})
		we := wantCode(t, werr, wire.CodeToolRequestNotPending)
		if details, _ := we.Details.(map[string]any); details["reason"] != string(wire.OutcomeInterrupted) {
			t.Errorf("a late result for %s: %+v, want reason interrupted", id, we)
		}
	}
	n := 0
	for _, e := range p2.Events() {
		if e.Event == wire.EventToolCallSettled {
			n++
		}
	}
	if want := len(ids) - answered; n != want {
		t.Errorf("%d tool_call_settled events after the restart, want one per call still pending (%d)", n, want)
	}
}

// A crash can fall between a call's tool_call_settled event and the
// record without the call, both journaled, the event first (a page may
// have seen it): the restart trusts the event, and does not settle the
// call a second time as interrupted.
func TestRestoreTrustsASettledEventOverTheRecord(t *testing.T) {
	state := t.TempDir()
	_, srv1, stop1 := runCore(t, state, "", nil)
	p := wspage.Dial(t, wsURL(srv1), srv1.URL)
	keep := false
	info := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &keep})
	stop1()
	p.Close()

	db, err := persist.Open(filepath.Join(state, persist.FileName), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	records, err := db.Sessions()
	if err != nil || len(records) != 1 {
		t.Fatalf("records = %+v, %v", records, err)
	}
	rec := records[0]
	rec.Skills = nil
	rec.Status = string(wire.StatusWaitingToolResult)
	rec.Turn = &persist.TurnRecord{ID: "t_1", StartedAt: rec.CreatedAt}
	rec.Pending = []persist.PendingRecord{{ID: "tr_answered", Tool: "echo", TurnID: "t_1"}, {ID: "tr_pending", Tool: "echo", TurnID: "t_1"}}
	frame := func(seq int64, event string, data any) persist.Event {
		return persist.Event{Seq: seq, Frame: mustMarshal(t, wire.Event{Type: wire.FrameEvent, Event: event, SessionID: rec.ID, Seq: seq, TurnID: "t_1", Data: data})}
	}
	last := rec.Seq + 1
	err = db.Apply([]persist.Op{{Put: &rec}, {SessionID: rec.ID, Events: []persist.Event{
		frame(last, wire.EventToolCallSettled, wire.ToolCallSettledData{ToolRequestID: "tr_answered", Tool: "echo", Outcome: wire.OutcomeResult}),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	_, srv2, _ := runCore(t, state, srv1.Listener.Addr().String(), nil)
	p2 := wspage.Dial(t, wsURL(srv2), srv2.URL)
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &last})
	awaitEvent(t, p2, wire.EventDone, "t_1", nil)
	for _, e := range p2.Events() {
		if e.Event == wire.EventToolCallSettled && strings.Contains(string(e.Data.(json.RawMessage)), "tr_answered") {
			t.Errorf("the answered call settled again after the restart: %s", e.Data)
		}
	}
	if d := settled(t, p2, "tr_pending"); d.Outcome != wire.OutcomeInterrupted {
		t.Errorf("the pending call settled %s, want interrupted", d.Outcome)
	}
	_, werr := p2.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: "tr_answered", Result: json.RawMessage(`1`)})
	we := wantCode(t, werr, wire.CodeToolRequestNotPending)
	if details, _ := we.Details.(map[string]any); details["reason"] != string(wire.OutcomeResult) {
		t.Errorf("a second result for the answered call: %+v, want reason result", we)
	}
}

// The agent learns how a call settled only once the journal has it: a
// call that timed out while no page was attached, then a crash, is not
// forgotten after the restart, and a late result gets reason timeout.
// (Only a page connection wrote the journal, and the writer's commits
// every 50 ms: an agent told "timeout" could meet a restarted Core that
// had never heard of the call.)
func TestCrashAfterTheAgentSawTheOutcome(t *testing.T) {
	turns := make(chan *heldTurn, 4)
	held := func(o *Options) { o.Providers = provider.NewRegistry("", heldProvider{turns: turns}) }
	c1, srv1, _ := runCore(t, t.TempDir(), "", held)
	p := wspage.Dial(t, wsURL(srv1), srv1.URL)
	keep := false
	info := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &keep})
	p.SendText(info.SessionID, "a slow call")
	ht := <-turns
	s, err := c1.session(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	awaitDetached(t, s, 5*time.Second)
	holdCommits(c1)
	_, callErr := ht.call("slow", `{}`)
	we := wantCode(t, callErr, wire.CodeToolTimeout)
	id, _ := we.Details.(map[string]any)["toolRequestId"].(string)
	image := crashImage(t, c1)
	srv1.Close()

	_, srv2, _ := runCore(t, image, srv1.Listener.Addr().String(), held)
	p2 := wspage.Dial(t, wsURL(srv2), srv2.URL)
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID})
	_, werr := p2.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: id, Result: json.RawMessage(`1`)})
	we = wantCode(t, werr, wire.CodeToolRequestNotPending)
	if details, _ := we.Details.(map[string]any); details["reason"] != string(wire.OutcomeTimeout) {
		t.Errorf("a late result for the call the agent saw time out: %+v, want reason timeout", we)
	}
}
