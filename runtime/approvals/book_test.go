package approvals

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// memStore is a Store in memory that counts its writes.
type memStore struct {
	mu     sync.Mutex
	grants map[string]wire.OriginGrant
	saves  int
}

func (m *memStore) Grants() ([]wire.OriginGrant, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []wire.OriginGrant
	for _, g := range m.grants {
		out = append(out, g)
	}
	return out, nil
}
func (m *memStore) SaveGrant(g wire.OriginGrant) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.grants[g.Origin] = g
	m.saves++
	return nil
}
func (m *memStore) DeleteGrant(o string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.grants, o)
	return nil
}

func newBook(t *testing.T, opts Options) *Book {
	t.Helper()
	b, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func code(err error) wire.Code {
	if e := wire.AsError(err); e != nil {
		return e.Code
	}
	return ""
}

func TestNormalizeOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://App.Example":      "https://app.example",
		"HTTPS://app.example:443/": "https://app.example",
		"http://localhost:3000":    "http://localhost:3000",
		"http://127.0.0.1:80":      "http://127.0.0.1",
		"http://[::1]:8080":        "http://[::1]:8080",
		" http://x.example:8443/ ": "http://x.example:8443",
	} {
		got, err := NormalizeOrigin(in)
		if err != nil || got != want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "null", "file:///x", "https://a.example/path", "ap_123", "https://u:p@a.example", "ftp://a.example"} {
		if _, err := NormalizeOrigin(bad); code(err) != wire.CodeInvalidInput {
			t.Errorf("NormalizeOrigin(%q) = %v; want INVALID_INPUT", bad, err)
		}
	}
}

// Pages of one origin share one request; one decision lets them all on,
// and the grant is stored once.
func TestOriginRequestSharedAndApproved(t *testing.T) {
	store := &memStore{grants: map[string]wire.OriginGrant{}}
	b := newBook(t, Options{Store: store})
	t1, err := b.RequestOrigin("https://app.example")
	if err != nil {
		t.Fatal(err)
	}
	t2, _ := b.RequestOrigin("https://APP.example:443")
	if t1.ID() == "" || t1.ID() != t2.ID() {
		t.Fatalf("ids %q %q: one origin, one request", t1.ID(), t2.ID())
	}
	st := b.State()
	if len(st.Pending) != 1 || st.Pending[0].Kind != wire.ApprovalOrigin || st.Pending[0].Origin != "https://app.example" {
		t.Fatalf("state = %+v", st)
	}
	errs := make(chan error, 2)
	for _, tk := range []*Ticket{t1, t2} {
		go func() { errs <- tk.Wait(context.Background()) }()
	}
	if _, err := b.Decide(t1.ID(), wire.DecisionApprove, "", ByConsole); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("waiter: %v", err)
		}
	}
	if !b.Approved("https://app.example") || store.saves != 1 || store.grants["https://app.example"].By != ByConsole {
		t.Fatalf("approved=%v store=%+v", b.Approved("https://app.example"), store.grants)
	}
	if st := b.State(); len(st.Pending) != 0 || len(st.Origins) != 1 {
		t.Fatalf("state after = %+v", st)
	}
	// Approved now: asking again is settled at once.
	t3, _ := b.RequestOrigin("https://app.example")
	if t3.ID() != "" || t3.Wait(context.Background()) != nil {
		t.Fatal("an approved origin was asked again")
	}
	// And the grant is read back by a new Book on the same store.
	b2 := newBook(t, Options{Store: store})
	if !b2.Approved("https://app.example") {
		t.Fatal("grant lost across Books")
	}
}

func TestOriginDecidedByOriginAndDeniedWithReason(t *testing.T) {
	b := newBook(t, Options{})
	tk, _ := b.RequestOrigin("http://localhost:5173")
	if _, err := b.Decide("http://LOCALHOST:5173/", wire.DecisionDeny, "not mine", ByCLI); err != nil {
		t.Fatal(err)
	}
	err := tk.Wait(context.Background())
	e := wire.AsError(err)
	if e == nil || e.Code != wire.CodeApprovalRejected || e.Details.(map[string]any)["reason"] != "not mine" {
		t.Fatalf("err = %#v", err)
	}
	if b.Approved("http://localhost:5173") {
		t.Fatal("denied origin approved")
	}
	// Deciding again: nothing pending.
	if _, err := b.Decide(tk.ID(), wire.DecisionApprove, "", ByCLI); code(err) != wire.CodeApprovalNotFound {
		t.Fatalf("second decision: %v", err)
	}
	// Denying an origin nobody asked for is not found; approving one grants it.
	if _, err := b.Decide("https://other.example", wire.DecisionDeny, "", ByCLI); code(err) != wire.CodeApprovalNotFound {
		t.Fatalf("deny unasked: %v", err)
	}
	if _, err := b.Decide("https://other.example", wire.DecisionApprove, "", ByCLI); err != nil || !b.Approved("https://other.example") {
		t.Fatalf("approve unasked: %v", err)
	}
	if _, err := b.Decide("ap_nope", "maybe", "", ByCLI); code(err) != wire.CodeInvalidInput {
		t.Fatalf("bad decision: %v", err)
	}
}

func TestOriginTimeout(t *testing.T) {
	b := newBook(t, Options{OriginTimeout: 30 * time.Millisecond})
	start := time.Now() // before the request: its clock starts inside RequestOrigin
	tk, _ := b.RequestOrigin("https://slow.example")
	err := tk.Wait(context.Background())
	e := wire.AsError(err)
	if e == nil || e.Code != wire.CodeApprovalTimeout || e.Details.(map[string]any)["timeoutMs"] != int64(30) {
		t.Fatalf("err = %#v", err)
	}
	if time.Since(start) < 30*time.Millisecond {
		t.Fatal("timed out early")
	}
	if len(b.State().Pending) != 0 {
		t.Fatal("expired request still pending")
	}
	if _, err := b.Decide(tk.ID(), wire.DecisionApprove, "", ByCLI); code(err) != wire.CodeApprovalNotFound {
		t.Fatalf("decide expired: %v", err)
	}
}

// A request nobody waits for any more leaves the list.
func TestOriginRequestEndsWithLastWaiter(t *testing.T) {
	b := newBook(t, Options{})
	t1, _ := b.RequestOrigin("https://a.example")
	t2, _ := b.RequestOrigin("https://a.example")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := t1.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	t1.Cancel() // twice is once
	if len(b.State().Pending) != 1 {
		t.Fatal("request ended while a page still waits")
	}
	t2.Cancel()
	if len(b.State().Pending) != 0 {
		t.Fatal("request outlived its waiters")
	}
}

func TestRevokeCallsBackAndForgets(t *testing.T) {
	store := &memStore{grants: map[string]wire.OriginGrant{}}
	var revoked []string
	var mu sync.Mutex
	var b *Book
	b = newBook(t, Options{Store: store, OnRevoke: func(o string) {
		// The callback runs without the Book's lock: it may ask the Book.
		_ = b.Approved(o)
		mu.Lock()
		revoked = append(revoked, o)
		mu.Unlock()
	}})
	if err := b.Grant("https://a.example", ByAllowOrigin); err != nil {
		t.Fatal(err)
	}
	if err := b.Revoke("https://A.example/"); err != nil {
		t.Fatal(err)
	}
	if b.Approved("https://a.example") || len(store.grants) != 0 || len(revoked) != 1 || revoked[0] != "https://a.example" {
		t.Fatalf("approved=%v store=%v revoked=%v", b.Approved("https://a.example"), store.grants, revoked)
	}
	if err := b.Revoke("https://a.example"); code(err) != wire.CodeApprovalNotFound {
		t.Fatalf("revoke twice: %v", err)
	}
}

func TestCallConsent(t *testing.T) {
	b := newBook(t, Options{})
	call := Call{SessionID: "s_1", CallID: "c_1", Tool: "deleteAll", Origin: "https://a.example", Args: []byte(`{"x":1}`), Timeout: time.Minute}
	tk := b.RequestCall(call)
	st := b.State()
	if len(st.Pending) != 1 || st.Pending[0].Kind != wire.ApprovalCall || st.Pending[0].Tool != "deleteAll" || string(st.Pending[0].Args) != `{"x":1}` {
		t.Fatalf("state = %+v", st)
	}
	// Deciding a call by origin does not reach it.
	if _, err := b.Decide("https://a.example", wire.DecisionDeny, "", ByCLI); code(err) != wire.CodeApprovalNotFound {
		t.Fatalf("deny by origin: %v", err)
	}
	if _, err := b.Decide(tk.ID(), wire.DecisionDeny, "too risky", ByConsole); err != nil {
		t.Fatal(err)
	}
	e := wire.AsError(tk.Wait(context.Background()))
	if e == nil || e.Code != wire.CodeToolCallDenied || e.Details.(map[string]any)["reason"] != "too risky" || e.Details.(map[string]any)["tool"] != "deleteAll" {
		t.Fatalf("denied: %#v", e)
	}
	// Approve once: the next call asks again.
	tk = b.RequestCall(call)
	b.Decide(tk.ID(), wire.DecisionApprove, "", ByCLI)
	if err := tk.Wait(context.Background()); err != nil || tk.Outcome().By != ByCLI {
		t.Fatalf("approved: %v %+v", err, tk.Outcome())
	}
	tk = b.RequestCall(call)
	if tk.ID() == "" {
		t.Fatal("an approved-once tool was let through again")
	}
	// Allow for the rest of the session: later calls of that tool in that
	// session are settled; other tools and other sessions still ask.
	b.Decide(tk.ID(), wire.DecisionAllowSession, "", ByConsole)
	if err := tk.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tk := b.RequestCall(call); tk.ID() != "" || tk.Wait(context.Background()) != nil || tk.Outcome().By != BySession {
		t.Fatal("allow_session did not hold")
	}
	other := call
	other.Tool = "pay"
	if tk := b.RequestCall(other); tk.ID() == "" {
		t.Fatal("allow_session leaked to another tool")
	} else {
		tk.Cancel()
	}
	other = call
	other.SessionID = "s_2"
	if tk := b.RequestCall(other); tk.ID() == "" {
		t.Fatal("allow_session leaked to another session")
	} else {
		tk.Cancel()
	}
	b.EndSession("s_1")
	if tk := b.RequestCall(call); tk.ID() == "" {
		t.Fatal("allow_session outlived the session")
	} else {
		tk.Cancel()
	}
	if len(b.State().Pending) != 0 {
		t.Fatalf("cancelled calls still pending: %+v", b.State().Pending)
	}
}

func TestCallConsentTimeout(t *testing.T) {
	b := newBook(t, Options{})
	tk := b.RequestCall(Call{SessionID: "s", CallID: "c", Tool: "pay", Timeout: 20 * time.Millisecond})
	e := wire.AsError(tk.Wait(context.Background()))
	if e == nil || e.Code != wire.CodeToolConsentTimeout || e.Details.(map[string]any)["timeoutMs"] != int64(20) {
		t.Fatalf("err = %#v", e)
	}
}

func TestChangeFeed(t *testing.T) {
	b := newBook(t, Options{})
	ch, cancel := b.Subscribe()
	defer cancel()
	expect := func(what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(time.Second):
			t.Fatalf("no change after %s", what)
		}
	}
	tk, _ := b.RequestOrigin("https://a.example")
	expect("request")
	b.Decide(tk.ID(), wire.DecisionApprove, "", ByCLI)
	expect("decision")
	b.Revoke("https://a.example")
	expect("revoke")
	// Many changes without a reader never block the Book.
	for range 10 {
		b.Grant("https://b.example", ByCLI)
		b.Revoke("https://b.example")
	}
	expect("burst")
}

// Many pages, decisions and timeouts at once (run with -race).
func TestConcurrentRequestsAndDecisions(t *testing.T) {
	b := newBook(t, Options{OriginTimeout: 50 * time.Millisecond})
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			origin := []string{"https://a.example", "https://b.example", "https://c.example"}[i%3]
			tk, err := b.RequestOrigin(origin)
			if err != nil {
				t.Error(err)
				return
			}
			if i%4 == 0 {
				b.Decide(origin, wire.DecisionApprove, "", ByCLI)
			}
			if i%5 == 0 {
				b.Revoke(origin)
			}
			_ = tk.Wait(context.Background())
			tc := b.RequestCall(Call{SessionID: "s", CallID: "c", Tool: "t", Timeout: 20 * time.Millisecond})
			if i%2 == 0 {
				b.Decide(tc.ID(), wire.DecisionAllowSession, "", ByCLI)
			}
			_ = tc.Wait(context.Background())
			_ = b.State()
		}()
	}
	wg.Wait()
}
