package runtime

import (
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// consentSkills: "pay" asks first (consequentialHint), "peek" is read-only
// (and says nothing else, so it never asks), "wipe" sets
// needsApproval, with a short timeout for the timeout case.
const consentSkills = `{"guidance":"g","tools":[
 {"name":"pay","description":"Pays.","argsSchema":{"type":"object","properties":{"amount":{"type":"integer"}},"required":[]},"annotations":{"consequentialHint":true}},
 {"name":"peek","description":"Reads.","argsSchema":{"type":"object","properties":{},"required":[]},"annotations":{"readOnlyHint":true}},
 {"name":"wipe","description":"Wipes.","argsSchema":{"type":"object","properties":{},"required":[]},"needsApproval":true,"timeoutMs":300}]}`

// consentSession opens a held session with consentSkills and a page that
// counts the handler runs of each tool.
func consentSession(t *testing.T) (*harness, *wspage.Page, *session.Session, *heldTurn, map[string]*atomic.Int32) {
	h := newHarness(t, nil)
	p := h.page()
	runs := map[string]*atomic.Int32{}
	for _, name := range []string{"pay", "peek", "wipe"} {
		n := &atomic.Int32{}
		runs[name] = n
		p.Handle(name, func(json.RawMessage) any { n.Add(1); return "ok" })
	}
	autoEnd := true
	info := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(consentSkills), AutoEndOnDisconnect: &autoEnd})
	s, err := h.core.session(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	_, ht := h.send(p, info.SessionID, "go")
	return h, p, s, ht, runs
}

// pendingApproval waits for the Book to list one pending call request.
func pendingApproval(t *testing.T, b *approvals.Book) wire.ApprovalRequest {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st := b.State(); len(st.Pending) == 1 {
			return st.Pending[0]
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no call waits for consent")
	return wire.ApprovalRequest{}
}

func TestConsentApproveRunsTheCall(t *testing.T) {
	h, p, s, ht, runs := consentSession(t)
	ch := callAsync(ht, "pay", `{"amount": 5}`)
	req := pendingApproval(t, h.core.book)
	if req.Kind != wire.ApprovalCall || req.Tool != "pay" || req.SessionID != s.ID() || string(req.Args) != `{"amount": 5}` && string(req.Args) != `{"amount":5}` {
		t.Fatalf("request = %+v", req)
	}
	// The page sees waiting_approval, naming the call and its request,
	// and no tool_call yet.
	ev := p.AwaitEvent(10*time.Second, "waiting_approval", func(e wire.Event) bool {
		if e.Event != wire.EventStatusChanged {
			return false
		}
		var d wire.StatusChangedData
		eventData(t, e, &d)
		return d.Status == wire.StatusWaitingApproval
	})
	var d wire.StatusChangedData
	eventData(t, ev, &d)
	if len(d.WaitingOn) != 1 || d.WaitingOn[0].ApprovalID != req.ID || d.WaitingOn[0].ToolRequestID != req.CallID || d.WaitingOn[0].Tool != "pay" {
		t.Fatalf("waitingOn = %+v", d.WaitingOn)
	}
	if runs["pay"].Load() != 0 {
		t.Fatal("the handler ran before the user approved")
	}
	if _, err := h.core.book.Decide(req.ID, wire.DecisionApprove, "", approvals.ByConsole); err != nil {
		t.Fatal(err)
	}
	if r := awaitCall(t, ch); r.err != nil || string(r.result) != `"ok"` {
		t.Fatalf("call = %s, %v", r.result, r.err)
	}
	call := toolCall(t, p, "pay", 1)
	if call.ToolRequestID != req.CallID {
		t.Errorf("the page got call %s, the user approved %s", call.ToolRequestID, req.CallID)
	}
	// One status change from waiting_approval to waiting_tool_result (no
	// "running" between), whatever follows once the result is in.
	want := []string{"idle>running", "running>waiting_approval", "waiting_approval>waiting_tool_result"}
	if got := statuses(t, p); len(got) < 3 || !slices.Equal(got[:3], want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
	if v := s.ConsoleView(); len(v.Calls) != 1 || v.Calls[0].ApprovedBy != approvals.ByConsole {
		t.Errorf("console calls = %+v", v.Calls)
	}
}

func TestConsentDenyNeverRunsTheHandler(t *testing.T) {
	h, p, _, ht, runs := consentSession(t)
	ch := callAsync(ht, "pay", `{}`)
	req := pendingApproval(t, h.core.book)
	if _, err := h.core.book.Decide(req.ID, wire.DecisionDeny, "not today", approvals.ByCLI); err != nil {
		t.Fatal(err)
	}
	r := awaitCall(t, ch)
	we := wantCode(t, r.err, wire.CodeToolCallDenied)
	if !strings.Contains(we.Message, "not today") {
		t.Errorf("message = %q", we.Message)
	}
	if d, _ := we.Details.(map[string]any); d["reason"] != "not today" || d["tool"] != "pay" {
		t.Errorf("details = %+v", we.Details)
	}
	time.Sleep(50 * time.Millisecond)
	if runs["pay"].Load() != 0 {
		t.Fatal("a denied call's handler ran")
	}
	for _, e := range p.Events() {
		if e.Event == wire.EventToolCall {
			t.Fatalf("a denied call reached the page: %v", e.Data)
		}
	}
	want := []string{"idle>running", "running>waiting_approval", "waiting_approval>running"}
	if got := statuses(t, p); !slices.Equal(got, want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
}

func TestConsentTimesOutWithTheToolsTimeout(t *testing.T) {
	h, _, _, ht, runs := consentSession(t)
	start := time.Now()
	r := awaitCall(t, callAsync(ht, "wipe", `{}`))
	wantCode(t, r.err, wire.CodeToolConsentTimeout)
	if el := time.Since(start); el < 250*time.Millisecond || el > 5*time.Second {
		t.Errorf("the wait took %s; the tool's timeout is 300ms", el)
	}
	if runs["wipe"].Load() != 0 || len(h.core.book.State().Pending) != 0 {
		t.Fatal("a timed-out call ran, or stayed pending")
	}
}

func TestConsentAllowForTheSession(t *testing.T) {
	h, _, s, ht, runs := consentSession(t)
	ch := callAsync(ht, "pay", `{}`)
	req := pendingApproval(t, h.core.book)
	if _, err := h.core.book.Decide(req.ID, wire.DecisionAllowSession, "", approvals.ByConsole); err != nil {
		t.Fatal(err)
	}
	if r := awaitCall(t, ch); r.err != nil {
		t.Fatal(r.err)
	}
	// The second call runs without asking, and the console says why.
	if r := awaitCall(t, callAsync(ht, "pay", `{}`)); r.err != nil {
		t.Fatal(r.err)
	}
	if runs["pay"].Load() != 2 {
		t.Errorf("pay ran %d times", runs["pay"].Load())
	}
	v := s.ConsoleView()
	if len(v.Calls) != 2 || v.Calls[0].ApprovedBy != approvals.ByConsole || v.Calls[1].ApprovedBy != approvals.BySession {
		t.Errorf("console calls = %+v", v.Calls)
	}
	// Another tool that asks still asks.
	ch = callAsync(ht, "wipe", `{}`)
	if req := pendingApproval(t, h.core.book); req.Tool != "wipe" {
		t.Errorf("request = %+v", req)
	}
	wantCode(t, awaitCall(t, ch).err, wire.CodeToolConsentTimeout)
}

// Read-only tools never ask, and a call that asks is refused, not asked
// about, when it could not run anyway.
func TestConsentReadOnlyNeverAsks(t *testing.T) {
	h, _, _, ht, runs := consentSession(t)
	if r := awaitCall(t, callAsync(ht, "peek", `{}`)); r.err != nil {
		t.Fatal(r.err)
	}
	if runs["peek"].Load() != 1 || len(h.core.book.State().Pending) != 0 {
		t.Fatal("a read-only call asked, or did not run")
	}
	_, err := ht.call("pay", `{"amount": "x"}`)
	wantCode(t, err, wire.CodeToolArgsInvalid)
	if len(h.core.book.State().Pending) != 0 {
		t.Fatal("a call with invalid arguments was put to the user")
	}
}

// Ending the session while a call waits for consent fails the call and
// takes the request off the Book.
func TestConsentSessionEndStopsTheWait(t *testing.T) {
	h, p, s, ht, runs := consentSession(t)
	ch := callAsync(ht, "pay", `{}`)
	pendingApproval(t, h.core.book)
	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: s.ID()})
	r := awaitCall(t, ch)
	if r.err == nil {
		t.Fatal("the call succeeded after the session ended")
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(h.core.book.State().Pending) != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if len(h.core.book.State().Pending) != 0 || runs["pay"].Load() != 0 {
		t.Fatal("the request outlived its session, or the handler ran")
	}
}

// The console and `pedelec approvals` list --allow-origin patterns among
// the approved origins, once each, after the Book's grants.
func TestApprovalsStateListsAllowOrigins(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.AllowOrigins = []string{"http://localhost:*", "http://app.test/"} })
	if err := h.core.book.Grant("http://app.test", approvals.ByCLI); err != nil {
		t.Fatal(err)
	}
	st := h.core.consoleApprovals()
	var got []string
	for _, g := range st.Origins {
		got = append(got, g.Origin+" "+g.By)
	}
	want := []string{"http://app.test cli", "http://localhost:* --allow-origin"}
	if !slices.Equal(got, want) {
		t.Errorf("origins = %v, want %v", got, want)
	}
}
