// Package wspage is a Go stand-in for a browser page in tests: it speaks the
// SDK's WebSocket protocol (docs/protocol.md) to a real `pedelec serve`,
// records every frame, and can answer tool calls with Go handlers.
package wspage

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Handler answers one tool call with a JSON-marshalable result.
// A Handler's value is the result; a *wire.Refusal refuses the call, and
// a *wire.SubmitToolResultParams is sent as it is but for its ids (its
// MCPContent and Result raw, hostile ones included).
type Handler func(args json.RawMessage) any

// Page is one WebSocket connection to Core.
type Page struct {
	t  testing.TB
	ws *websocket.Conn

	mu       sync.Mutex
	nextID   int64
	waiting  map[int64]chan wire.Response
	frames   [][]byte // every frame received, in order
	events   []wire.Event
	changed  chan struct{}
	handlers map[string]Handler
	closed   bool
	// submitErrors are the errors Core answered submit_tool_result with.
	submitErrors []*wire.Error
	// messages counts the WebSocket messages received; arrays those that
	// were batched (a JSON array of frames, on a ?batch=1 connection).
	messages, arrays int
}

// Dial connects to wsURL with the given Origin header ("" for none).
func Dial(t testing.TB, wsURL, origin string) *Page {
	t.Helper()
	p, resp, err := TryDial(wsURL, origin)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s (origin %q): %v (HTTP %d)", wsURL, origin, err, status)
	}
	p.t = t
	t.Cleanup(p.Close)
	return p
}

// TryDial connects without failing the test, for refusal tests.
func TryDial(wsURL, origin string) (*Page, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, resp, err
	}
	ws.SetReadLimit(64 << 20)
	p := &Page{ws: ws, waiting: map[int64]chan wire.Response{}, changed: make(chan struct{}), handlers: map[string]Handler{}}
	go p.readLoop()
	return p, resp, nil
}

// Close closes the connection (as a page closing its tab).
func (p *Page) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	p.ws.Close(websocket.StatusNormalClosure, "")
}

func (p *Page) readLoop() {
	for {
		_, data, err := p.ws.Read(context.Background())
		if err != nil {
			p.mu.Lock()
			p.closed = true
			for _, ch := range p.waiting {
				close(ch)
			}
			p.waiting = map[int64]chan wire.Response{}
			p.notifyLocked()
			p.mu.Unlock()
			return
		}
		p.mu.Lock()
		p.messages++
		if elems, ok := batchOf(data); ok {
			p.arrays++
			for _, f := range elems {
				p.receiveLocked(f)
			}
		} else {
			p.receiveLocked(data)
		}
		p.notifyLocked()
		p.mu.Unlock()
	}
}

// receiveLocked records one frame and acts on it.
func (p *Page) receiveLocked(data []byte) {
	var head struct {
		Type string `json:"type"`
	}
	json.Unmarshal(data, &head)
	p.frames = append(p.frames, data)
	switch head.Type {
	case wire.FrameResponse:
		var r wire.Response
		var raw struct {
			Result json.RawMessage `json:"result"`
		}
		json.Unmarshal(data, &r)
		json.Unmarshal(data, &raw)
		r.Result = raw.Result
		if ch, ok := p.waiting[r.ID]; ok {
			ch <- r
			delete(p.waiting, r.ID)
		}
	case wire.FrameEvent:
		var ev wire.Event
		var raw struct {
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(data, &ev)
		json.Unmarshal(data, &raw)
		ev.Data = raw.Data
		p.events = append(p.events, ev)
		if ev.Event == wire.EventToolCall {
			var call wire.ToolCallData
			json.Unmarshal(raw.Data, &call)
			if h, ok := p.handlers[call.Tool]; ok {
				go p.answer(ev.SessionID, call, h)
			}
		}
	}
}

func (p *Page) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *Page) answer(sessionID string, call wire.ToolCallData, h Handler) {
	result := h(call.Args)
	params := wire.SubmitToolResultParams{SessionID: sessionID, ToolRequestID: call.ToolRequestID}
	if r, ok := result.(*wire.Refusal); ok { // the handler refused the call
		params.Refusal = r
	} else if raw, ok := result.(*wire.SubmitToolResultParams); ok {
		params.Refusal, params.MCPContent, params.Result = raw.Refusal, raw.MCPContent, raw.Result
	} else {
		params.Result = mustJSON(result)
	}
	_, err := p.Call(wire.MethodSubmitToolResult, params)
	if err != nil {
		p.mu.Lock()
		p.submitErrors = append(p.submitErrors, err)
		p.mu.Unlock()
	}
}

// Handle registers an automatic answer for tool.
func (p *Page) Handle(tool string, h Handler) {
	p.mu.Lock()
	p.handlers[tool] = h
	p.mu.Unlock()
}

// Send writes a raw frame.
func (p *Page) Send(frame []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.ws.Write(ctx, websocket.MessageText, frame)
}

// Call sends a request and waits (10s) for its response.
func (p *Page) Call(method string, params any) (json.RawMessage, *wire.Error) {
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	ch := make(chan wire.Response, 1)
	p.waiting[id] = ch
	p.mu.Unlock()
	frame, _ := json.Marshal(wire.Request{Type: wire.FrameRequest, ID: id, Method: method, Params: mustJSON(params)})
	if err := p.Send(frame); err != nil {
		return nil, wire.Errorf("TRANSPORT", "send: %v", err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, wire.Errorf("TRANSPORT", "connection closed before the response")
		}
		if !r.OK {
			return nil, r.Error
		}
		raw, _ := r.Result.(json.RawMessage)
		return raw, nil
	case <-time.After(10 * time.Second):
		return nil, wire.Errorf("TRANSPORT", "no response to %s within 10s", method)
	}
}

// MustCall is Call that fails the test on an error.
func (p *Page) MustCall(method string, params any) json.RawMessage {
	p.t.Helper()
	res, err := p.Call(method, params)
	if err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
	return res
}

// CreateSession creates a session and returns its info.
func (p *Page) CreateSession(params wire.CreateSessionParams) wire.SessionInfo {
	p.t.Helper()
	var info wire.SessionInfo
	json.Unmarshal(p.MustCall(wire.MethodCreateSession, params), &info)
	return info
}

// SendText starts a turn and returns its id.
func (p *Page) SendText(sessionID, text string) string {
	p.t.Helper()
	var started wire.TurnStarted
	json.Unmarshal(p.MustCall(wire.MethodSendText, wire.SendTextParams{SessionID: sessionID, Text: text}), &started)
	return started.TurnID
}

// Events returns a copy of the events received so far.
func (p *Page) Events() []wire.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]wire.Event(nil), p.events...)
}

// Frames returns every frame received so far.
func (p *Page) Frames() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.frames...)
}

// SubmitErrors returns the errors Core answered the handlers' results with.
func (p *Page) SubmitErrors() []*wire.Error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*wire.Error(nil), p.submitErrors...)
}

// Closed reports whether the connection is closed.
func (p *Page) Closed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// AwaitEvent waits until an event matching match arrives and returns it.
func (p *Page) AwaitEvent(timeout time.Duration, what string, match func(wire.Event) bool) wire.Event {
	p.t.Helper()
	deadline := time.After(timeout)
	seen := 0
	for {
		p.mu.Lock()
		for ; seen < len(p.events); seen++ {
			if match(p.events[seen]) {
				ev := p.events[seen]
				p.mu.Unlock()
				return ev
			}
		}
		changed := p.changed
		closed := p.closed
		p.mu.Unlock()
		if closed {
			p.t.Fatalf("connection closed while waiting for %s", what)
		}
		select {
		case <-changed:
		case <-deadline:
			p.t.Fatalf("timed out after %s waiting for %s; events: %s", timeout, what, p.dump())
		}
	}
}

// AwaitDone waits for the done event of turnID and returns its data.
func (p *Page) AwaitDone(turnID string, timeout time.Duration) wire.DoneData {
	p.t.Helper()
	ev := p.AwaitEvent(timeout, "done of "+turnID, func(e wire.Event) bool { return e.Event == wire.EventDone && e.TurnID == turnID })
	var d wire.DoneData
	json.Unmarshal(ev.Data.(json.RawMessage), &d)
	return d
}

// Chat is the concatenated chat_delta text of turnID.
func (p *Page) Chat(turnID string) string {
	var s string
	for _, e := range p.Events() {
		if e.Event == wire.EventChatDelta && e.TurnID == turnID {
			var d wire.ChatDeltaData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			s += d.Text
		}
	}
	return s
}

// Errors are the errors of turnID's error events, in order.
func (p *Page) Errors(turnID string) []*wire.Error {
	var errs []*wire.Error
	for _, e := range p.Events() {
		if e.Event == wire.EventError && e.TurnID == turnID {
			var d wire.ErrorData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			errs = append(errs, d.Error)
		}
	}
	return errs
}

func (p *Page) dump() string {
	var out string
	for _, f := range p.Frames() {
		out += "\n  " + string(f)
	}
	return out
}

func mustJSON(v any) json.RawMessage {
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}
