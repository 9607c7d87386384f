package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The in-process tier of Core's tests: a real Core behind an httptest
// server on loopback, a Go page (wspage) on a real WebSocket, and a
// provider whose turns the test drives by hand, so the broker, the
// sessions and the connection loop run exactly as in `pedelec serve`,
// under -race, in milliseconds.

// heldTurn is a provider turn the test holds open: it calls tools through
// turn.Calls, emits events, and ends the turn with finish.
type heldTurn struct {
	ctx    context.Context
	turn   *provider.Turn
	emit   func(provider.Event)
	finish chan error
}

// call runs a tool call the way an agent does (through Core's broker).
func (h *heldTurn) call(tool, args string) (json.RawMessage, error) {
	return h.turn.Calls.CallTool(h.ctx, tool, json.RawMessage(args))
}

// heldProvider hands every turn to the test.
type heldProvider struct{ turns chan *heldTurn }

func (heldProvider) Name() string { return "held" }
func (heldProvider) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{Name: "held", Available: true, DefaultModel: "held-model"}
}
func (p heldProvider) RunTurn(ctx context.Context, turn *provider.Turn, emit func(provider.Event)) error {
	h := &heldTurn{ctx: ctx, turn: turn, emit: emit, finish: make(chan error, 1)}
	select {
	case p.turns <- h:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-h.finish:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// harnessSkills: echo answers with what it got; slow times out after 200 ms;
// none takes no arguments.
const harnessSkills = `{
  "guidance": "Test tools.",
  "tools": [
    {"name": "echo", "description": "Echo the arguments.",
     "argsSchema": {"type": "object", "properties": {"x": {"type": "integer", "description": "A number."}}, "required": ["x"]}},
    {"name": "slow", "description": "Never answered in time.",
     "argsSchema": {"type": "object", "properties": {}, "required": []}, "timeoutMs": 200},
    {"name": "none", "description": "Takes no arguments.",
     "argsSchema": {"type": "object", "properties": {}, "required": []}}
  ]
}`

type harness struct {
	t     *testing.T
	core  *Core
	srv   *httptest.Server
	turns chan *heldTurn
}

// newHarness is a Core with the held provider; opts adjusts its options.
func newHarness(t *testing.T, opts func(*Options)) *harness {
	t.Helper()
	turns := make(chan *heldTurn, 4)
	o := Options{
		StateDir:   t.TempDir(),
		Providers:  provider.NewRegistry("", heldProvider{turns: turns}),
		Logger:     log.New(io.Discard),
		Executable: "/bin/false",
	}
	if opts != nil {
		opts(&o)
	}
	core, err := NewCore(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(core.Handler(Assets{}))
	core.coreURL = srv.URL
	t.Cleanup(func() {
		core.Shutdown(context.Background())
		srv.Close()
	})
	return &harness{t: t, core: core, srv: srv, turns: turns}
}

// page connects a page from Core's own origin.
func (h *harness) page() *wspage.Page {
	h.t.Helper()
	return wspage.Dial(h.t, wsURL(h.srv), h.srv.URL)
}

// session creates a held session from p.
func (h *harness) session(p *wspage.Page, autoEnd bool) (wire.SessionInfo, *session.Session) {
	h.t.Helper()
	info := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &autoEnd})
	s, err := h.core.session(info.SessionID)
	if err != nil {
		h.t.Fatal(err)
	}
	return info, s
}

// send starts a turn and returns its id and the held provider turn.
func (h *harness) send(p *wspage.Page, sessionID, text string) (string, *heldTurn) {
	h.t.Helper()
	id := p.SendText(sessionID, text)
	return id, h.held()
}

func (h *harness) held() *heldTurn {
	h.t.Helper()
	select {
	case ht := <-h.turns:
		return ht
	case <-time.After(10 * time.Second):
		h.t.Fatal("the provider was not asked for a turn")
		return nil
	}
}

// eventData decodes an event's data into v.
func eventData(t *testing.T, ev wire.Event, v any) {
	t.Helper()
	if err := json.Unmarshal(ev.Data.(json.RawMessage), v); err != nil {
		t.Fatalf("event %s: %v", ev.Event, err)
	}
}

// awaitEvent waits for the first event named name (for turnID, when given)
// matching match (may be nil).
func awaitEvent(t *testing.T, p *wspage.Page, name, turnID string, match func(wire.Event) bool) wire.Event {
	t.Helper()
	return p.AwaitEvent(10*time.Second, name, func(e wire.Event) bool {
		return e.Event == name && (turnID == "" || e.TurnID == turnID) && (match == nil || match(e))
	})
}

// settled waits for the tool_call_settled event of a call.
func settled(t *testing.T, p *wspage.Page, toolRequestID string) wire.ToolCallSettledData {
	t.Helper()
	ev := awaitEvent(t, p, wire.EventToolCallSettled, "", func(e wire.Event) bool {
		var d wire.ToolCallSettledData
		_ = json.Unmarshal(e.Data.(json.RawMessage), &d)
		return d.ToolRequestID == toolRequestID
	})
	var d wire.ToolCallSettledData
	eventData(t, ev, &d)
	return d
}

// toolCall waits for the nth (from 1) tool_call event for tool.
func toolCall(t *testing.T, p *wspage.Page, tool string, nth int) wire.ToolCallData {
	t.Helper()
	seen := 0
	ev := awaitEvent(t, p, wire.EventToolCall, "", func(e wire.Event) bool {
		var d wire.ToolCallData
		_ = json.Unmarshal(e.Data.(json.RawMessage), &d)
		if d.Tool == tool {
			seen++
		}
		return d.Tool == tool && seen == nth
	})
	var d wire.ToolCallData
	eventData(t, ev, &d)
	return d
}

// statuses lists the status_changed events of a session, as "prev>next".
func statuses(t *testing.T, p *wspage.Page) []string {
	var out []string
	for _, e := range p.Events() {
		if e.Event == wire.EventStatusChanged {
			var d wire.StatusChangedData
			eventData(t, e, &d)
			out = append(out, string(d.PreviousStatus+">"+d.Status))
		}
	}
	return out
}

// callResult is one finished CallTool.
type callResult struct {
	result json.RawMessage
	err    error
}

// callAsync runs a tool call in the background.
func callAsync(h *heldTurn, tool, args string) chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		r, err := h.call(tool, args)
		ch <- callResult{r, err}
	}()
	return ch
}

func awaitCall(t *testing.T, ch chan callResult) callResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the tool call did not return")
		return callResult{}
	}
}

// wantCode checks err's code (as the edge would report it) and returns it.
func wantCode(t *testing.T, err error, code wire.Code) *wire.Error {
	t.Helper()
	we := wire.AsError(err) // also nil for a nil *wire.Error from wspage
	if we == nil || we.Code != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
	return we
}

// otherOriginPage connects a page from another (allowed) origin.
func (h *harness) otherOriginPage(origin string) *wspage.Page {
	h.t.Helper()
	return wspage.Dial(h.t, wsURL(h.srv), origin)
}

// endSession ends a session as a page does and waits for its ended event.
// end_session's answer comes first and the session ends after it (the
// page hears the answer, then the session's last events), so a test that
// probes the ended session as soon as the answer arrives races the end:
// under load the probe won (TestSessionMCPRefusals).
func endSession(t *testing.T, p *wspage.Page, sessionID string) {
	t.Helper()
	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sessionID})
	awaitEvent(t, p, wire.EventEnded, "", func(e wire.Event) bool { return e.SessionID == sessionID })
}
