package runtime

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The origin gate (runtime/page/origin_gate.go) over a real WebSocket, against the
// real Book: what an unapproved origin may do, how its create_session
// waits and ends, and that the Book keeps one request per origin that
// lives exactly as long as somebody waits on it.

const gateOrigin = "http://app.example:8080"

// createParams is a held session's create_session parameters.
func createParams() wire.CreateSessionParams {
	return wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills)}
}

// pendingOrigins is the Book's pending origin requests.
func pendingOrigins(h *harness) []wire.ApprovalRequest {
	var out []wire.ApprovalRequest
	for _, r := range h.core.book.State().Pending {
		if r.Kind == wire.ApprovalOrigin {
			out = append(out, r)
		}
	}
	return out
}

// awaitPending waits until the Book holds n pending origin requests.
func awaitPending(t *testing.T, h *harness, n int, what string) []wire.ApprovalRequest {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := pendingOrigins(h)
		if len(got) == n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d pending origin requests, want %d: %+v", what, len(got), n, got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func sessionCount(h *harness) int {
	return len(h.core.sessions.All())
}

type gateResult struct {
	raw json.RawMessage
	err *wire.Error
}

// callAsyncOn sends method from p and answers on the channel.
func callAsyncOn(p *wspage.Page, method string, params any) chan gateResult {
	ch := make(chan gateResult, 1)
	go func() {
		raw, err := p.Call(method, params)
		ch <- gateResult{raw, err}
	}()
	return ch
}

func awaitGate(t *testing.T, ch chan gateResult, what string) gateResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no answer", what)
		return gateResult{}
	}
}

// notYet fails when ch already answered: the call must still wait.
func notYet(t *testing.T, ch chan gateResult, what string) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("%s answered before the user decided: %s %v", what, r.raw, r.err)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestOriginGateUnapprovedMayOnlyAsk(t *testing.T) {
	h := newHarness(t, nil)
	p := h.otherOriginPage(gateOrigin)

	var st wire.OriginApprovalStatus
	if err := json.Unmarshal(p.MustCall(wire.MethodGetApprovalStatus, map[string]any{}), &st); err != nil || st.Approved || st.Origin != gateOrigin {
		t.Fatalf("get_approval_status = %+v (%v)", st, err)
	}
	if got := pendingOrigins(h); len(got) != 0 {
		t.Fatalf("get_approval_status asked the user: %+v", got)
	}
	// Everything else but the three approval methods and the two that wait.
	for _, m := range []string{wire.MethodListProviders, wire.MethodSendText, wire.MethodPrepare, wire.MethodSubmitToolResult,
		wire.MethodEndSession, wire.MethodListAssets, wire.MethodAssetReadTicket, wire.MethodAssetUploadTicket, "no_such_method"} {
		_, err := p.Call(m, map[string]any{"sessionId": "s_x"})
		we := wantCode(t, err, wire.CodeCreateSessionNotApproved)
		if d, _ := we.Details.(map[string]any); d["origin"] != gateOrigin {
			t.Fatalf("%s: details %v", m, we.Details)
		}
	}
	if got := pendingOrigins(h); len(got) != 0 {
		t.Fatalf("a refused method asked the user: %+v", got)
	}
	// request_approval asks (once), and tells the page where to decide.
	if err := json.Unmarshal(p.MustCall(wire.MethodRequestApproval, map[string]any{}), &st); err != nil || st.Approved || st.RequestID == "" ||
		st.URL != h.srv.URL+approvals.PagePath+st.RequestID || st.TimeoutMs != approvals.DefaultOriginTimeout.Milliseconds() {
		t.Fatalf("request_approval = %+v (%v)", st, err)
	}
	if got := awaitPending(t, h, 1, "after request_approval"); got[0].ID != st.RequestID || got[0].Origin != gateOrigin {
		t.Fatalf("pending = %+v", got)
	}
	// Core's own origin is never gated.
	own := h.page()
	if err := json.Unmarshal(own.MustCall(wire.MethodGetApprovalStatus, map[string]any{}), &st); err != nil || !st.Approved {
		t.Fatalf("Core's own page: %+v (%v)", st, err)
	}
	own.MustCall(wire.MethodListProviders, map[string]any{})
}

func TestOriginGateCreateWaitsForApproval(t *testing.T) {
	h := newHarness(t, nil)
	p := h.otherOriginPage(gateOrigin)
	created := callAsyncOn(p, wire.MethodCreateSession, createParams())
	req := awaitPending(t, h, 1, "create_session")[0]
	notYet(t, created, "create_session")
	// Other requests on the same connection are answered meanwhile: the
	// wait is off the read loop.
	var st wire.OriginApprovalStatus
	if err := json.Unmarshal(p.MustCall(wire.MethodGetApprovalStatus, map[string]any{}), &st); err != nil || st.Approved {
		t.Fatalf("while waiting: %+v %v", st, err)
	}
	if _, err := h.core.book.Decide(req.ID, wire.DecisionApprove, "", approvals.ByCLI); err != nil {
		t.Fatal(err)
	}
	r := awaitGate(t, created, "create_session after approve")
	var info wire.SessionInfo
	if r.err != nil || json.Unmarshal(r.raw, &info) != nil || info.SessionID == "" {
		t.Fatalf("create_session after approve: %s %v", r.raw, r.err)
	}
	if got := pendingOrigins(h); len(got) != 0 {
		t.Fatalf("left pending: %+v", got)
	}
	// Approved now, for this connection and for new ones of the origin.
	p.MustCall(wire.MethodListProviders, map[string]any{})
	h.otherOriginPage(gateOrigin).CreateSession(createParams())
}

func TestOriginGateCreateRejected(t *testing.T) {
	h := newHarness(t, nil)
	p := h.otherOriginPage(gateOrigin)
	created := callAsyncOn(p, wire.MethodCreateSession, createParams())
	awaitPending(t, h, 1, "create_session")
	notYet(t, created, "create_session")
	// Denied by origin, as `pedelec deny <origin>` does.
	if _, err := h.core.book.Decide(gateOrigin, wire.DecisionDeny, "not this site", approvals.ByCLI); err != nil {
		t.Fatal(err)
	}
	r := awaitGate(t, created, "create_session after deny")
	we := wantCode(t, r.err, wire.CodeApprovalRejected)
	if d, _ := we.Details.(map[string]any); d["reason"] != "not this site" || d["origin"] != gateOrigin {
		t.Fatalf("details = %v", we.Details)
	}
	if h.core.book.Approved(gateOrigin) || sessionCount(h) != 0 {
		t.Fatal("a denied origin was approved or got a session")
	}
	// Still gated; a rejected site may not ask again for a while
	// (--origin-reject-cooldown): the next create_session is refused at
	// once and asks nobody.
	_, err := p.Call(wire.MethodListProviders, map[string]any{})
	wantCode(t, err, wire.CodeCreateSessionNotApproved)
	_, err = p.Call(wire.MethodCreateSession, createParams())
	if d, _ := wantCode(t, err, wire.CodeApprovalRejected).Details.(map[string]any); d["retryAfterMs"] == nil {
		t.Fatalf("asking again at once: %v", err)
	}
	awaitPending(t, h, 0, "the next create_session")
	p.Close()
}

func TestOriginGateCreateTimesOut(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.OriginApprovalTimeout = 300 * time.Millisecond })
	p := h.otherOriginPage(gateOrigin)
	start := time.Now()
	_, err := p.Call(wire.MethodCreateSession, createParams())
	we := wantCode(t, err, wire.CodeApprovalTimeout)
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Fatalf("timed out after %s, before the timeout", took)
	}
	if d, _ := we.Details.(map[string]any); d["timeoutMs"] != float64(300) {
		t.Fatalf("details = %v", we.Details)
	}
	awaitPending(t, h, 0, "after the timeout")
}

// A page that goes away while it waits leaves nothing pending: the
// request ends with its last waiter, whether the page waited in
// create_session or in the SDK's request_approval + await_approval.
func TestOriginGateClosedConnectionLeavesNoRequest(t *testing.T) {
	h := newHarness(t, nil)
	t.Run("create_session", func(t *testing.T) {
		p := h.otherOriginPage(gateOrigin)
		callAsyncOn(p, wire.MethodCreateSession, createParams())
		awaitPending(t, h, 1, "create_session")
		p.Close()
		awaitPending(t, h, 0, "after the page closed")
	})
	t.Run("request_approval then await_approval", func(t *testing.T) {
		p := h.otherOriginPage(gateOrigin)
		p.MustCall(wire.MethodRequestApproval, map[string]any{})
		callAsyncOn(p, wire.MethodAwaitApproval, map[string]any{})
		awaitPending(t, h, 1, "await_approval")
		p.Close()
		awaitPending(t, h, 0, "after the page closed")
	})
	t.Run("request_approval alone", func(t *testing.T) {
		p := h.otherOriginPage(gateOrigin)
		p.MustCall(wire.MethodRequestApproval, map[string]any{})
		p.MustCall(wire.MethodRequestApproval, map[string]any{}) // asked twice: still one request, one place
		awaitPending(t, h, 1, "request_approval")
		p.Close()
		awaitPending(t, h, 0, "after the page closed")
	})
	t.Run("one of two pages closes", func(t *testing.T) {
		p1, p2 := h.otherOriginPage(gateOrigin), h.otherOriginPage(gateOrigin)
		callAsyncOn(p1, wire.MethodCreateSession, createParams())
		req := awaitPending(t, h, 1, "the first page")[0]
		// p2 takes its place in the same request before p1 closes (a
		// create_session sent alone might join only after p1 had gone,
		// and make a request of its own).
		p2.MustCall(wire.MethodRequestApproval, map[string]any{})
		waiting := callAsyncOn(p2, wire.MethodCreateSession, createParams())
		p1.Close()
		time.Sleep(100 * time.Millisecond)
		if got := pendingOrigins(h); len(got) != 1 || got[0].ID != req.ID {
			t.Fatalf("the request ended while p2 still waits: %+v", got)
		}
		p2.Close()
		awaitPending(t, h, 0, "after both pages closed")
		_ = waiting
	})
}

// Many connections of one origin wait on one request, and one decision
// answers them all; another origin has its own.
func TestOriginGateOneRequestPerOrigin(t *testing.T) {
	h := newHarness(t, nil)
	const n = 8
	chans := make([]chan gateResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := wspage.Dial(t, wsURL(h.srv), gateOrigin)
			if i%2 == 0 {
				chans[i] = callAsyncOn(p, wire.MethodCreateSession, createParams())
			} else {
				p.MustCall(wire.MethodRequestApproval, map[string]any{})
				chans[i] = callAsyncOn(p, wire.MethodAwaitApproval, map[string]any{})
			}
		}()
	}
	wg.Wait()
	other := h.otherOriginPage("http://other.example")
	otherCreated := callAsyncOn(other, wire.MethodCreateSession, createParams())
	reqs := awaitPending(t, h, 2, "eight pages of one origin, one of another")
	byOrigin := map[string]string{}
	for _, r := range reqs {
		byOrigin[r.Origin] = r.ID
	}
	if byOrigin[gateOrigin] == "" || byOrigin["http://other.example"] == "" {
		t.Fatalf("pending = %+v", reqs)
	}
	for i := range n {
		notYet(t, chans[i], fmt.Sprintf("page %d", i))
	}
	if _, err := h.core.book.Decide(byOrigin[gateOrigin], wire.DecisionApprove, "", approvals.ByConsole); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if r := awaitGate(t, chans[i], fmt.Sprintf("page %d", i)); r.err != nil {
			t.Fatalf("page %d: %v", i, r.err)
		}
	}
	if got := sessionCount(h); got != n/2 {
		t.Fatalf("%d sessions, want %d", got, n/2)
	}
	notYet(t, otherCreated, "the other origin")
	if got := awaitPending(t, h, 1, "the other origin's request"); got[0].Origin != "http://other.example" {
		t.Fatalf("pending = %+v", got)
	}
}
