// Package agentserver is Core's agent endpoint, the server half of
// runtime/agentclient: `pedelec tool-call` (with its budget and progress
// stream, and `--wait` for a call handed over) and `tool-spec`, run by a
// provider's shell, dial back here with the session's secret. The calls
// themselves are runtime/session's; this package reads requests and
// writes answers.
package agentserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/callprogress"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// Server is the agent endpoint. Core fills in every field before it
// serves; none changes after.
type Server struct {
	Sessions        *session.Table
	MaxMessageBytes int64         // bounds a request body
	ReadTimeout     time.Duration // bounds reading it (pedelec serve --read-timeout)
}

// Mount adds the endpoint's routes to mux.
func (a *Server) Mount(mux *http.ServeMux) {
	mux.HandleFunc("POST "+wire.AgentToolCallPath, a.serveToolCall)
	mux.HandleFunc("POST "+wire.AgentToolSpecPath, a.serveToolSpec)
	mux.HandleFunc("POST "+wire.AgentToolWaitPath, a.serveToolWait)
}

func (a *Server) serveToolCall(w http.ResponseWriter, r *http.Request) {
	var req wire.AgentToolCallRequest
	s := a.agentRequest(w, r, &req, func() string { return req.ThreadID })
	if s == nil {
		return
	}
	// The call runs beside the request, which may hand it over to
	// `tool-call --wait` when it has a budget (session.Handoff); without
	// one it waits as long as the call takes. Either way it is the
	// broker's one pipeline (session.Session.Call) that judges it.
	// details.next names the session by its agent thread id, even if the
	// agent named it by the session id: that command stands in `ps`.
	to := session.ForAgent
	if req.MCP {
		to = session.ForMCP // `pedelec mcp` serving this session
	}
	h := s.StartHandoff(session.AgentThreadID(s.ID()), req.Tool, req.Args, to)
	a.awaitHandoff(w, r, s, h, budgetOf(req.BudgetMs), req.Stream)
}

func (a *Server) serveToolSpec(w http.ResponseWriter, r *http.Request) {
	var req wire.AgentToolSpecRequest
	s := a.agentRequest(w, r, &req, func() string { return req.ThreadID })
	if s == nil {
		return
	}
	def, ok := s.Tools().Tool(req.Tool)
	if !ok {
		Write(w, nil, s.ToolNotFound(req.Tool))
		return
	}
	spec := def.Def()
	if spec.TimeoutMs == nil {
		ms := a.Sessions.Config().ToolTimeout.Milliseconds()
		spec.TimeoutMs = &ms
	}
	// asksConsent says outright what the annotations imply (issue 22):
	// each call waits for the user, and may end in TOOL_CALL_DENIED.
	data, _ := json.Marshal(struct {
		schema.Tool
		AsksConsent bool `json:"asksConsent,omitempty"`
	}{spec, spec.AsksConsent()})
	Write(w, data, nil)
}

// serveToolWait is `tool-call --wait <handle>`.
func (a *Server) serveToolWait(w http.ResponseWriter, r *http.Request) {
	var req wire.AgentToolWaitRequest
	s := a.agentRequest(w, r, &req, func() string { return req.ThreadID })
	if s == nil {
		return
	}
	h, err := s.ClaimHandoff(req.Handle)
	if err != nil {
		Write(w, nil, err)
		return
	}
	a.awaitHandoff(w, r, s, h, budgetOf(req.BudgetMs), req.Stream)
}

// awaitHandoff waits for h on behalf of one request for at most budget
// (0: as long as it takes), streaming its progress to w when asked.
func (a *Server) awaitHandoff(w http.ResponseWriter, r *http.Request, s *session.Session, h *session.Handoff, budget time.Duration, stream bool) {
	if !stream {
		WriteResult(w, s.AwaitHandoff(r.Context(), h, budget))
		return
	}
	sw := NewStream(w)
	ctx, stop := context.WithCancel(r.Context())
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		callprogress.Pump(ctx, h.Progress(), callprogress.Every, sw.Progress)
	}()
	out := s.AwaitHandoff(r.Context(), h, budget)
	stop()
	<-pumped
	sw.Finish(out)
}

// budgetOf reads a request's budgetMs; nonsense (negative) means none.
func budgetOf(ms int64) time.Duration {
	if ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// agentRequest reads one agent request into req and finds the session its
// thread id names, with the caller's secret. On failure it has answered
// and returns nil.
func (a *Server) agentRequest(w http.ResponseWriter, r *http.Request, req any, threadID func() string) *session.Session {
	if err := ReadRequest(w, r, req, a.MaxMessageBytes, a.ReadTimeout); err != nil {
		Write(w, nil, err)
		return nil
	}
	secret, bearer := wire.BearerToken(r)
	s, err := a.Sessions.AgentSession(threadID(), secret, bearer)
	if err != nil {
		Write(w, nil, err)
		return nil
	}
	return s
}

// ReadRequest decodes one JSON body of at most limit bytes, which must
// arrive within readTimeout (the deadline Core's bodyDeadline set).
func ReadRequest(w http.ResponseWriter, r *http.Request, v any, limit int64, readTimeout time.Duration) error {
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	err := dec.Decode(v)
	if err == nil {
		// Read to the end within the deadline, which lifts it.
		_, err = io.Copy(io.Discard, dec.Buffered())
		if err == nil {
			_, err = io.Copy(io.Discard, body)
		}
	}
	if err != nil {
		var mbe *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &mbe):
			return wire.Errorf(wire.CodeMessageTooLarge, "request is over the %d-byte limit", limit).WithDetails(map[string]any{"limit": limit})
		case errors.As(err, &ne) && ne.Timeout():
			return wire.Errorf(wire.CodeInvalidInput, "the request body did not arrive within %s (pedelec serve --read-timeout)", readTimeout).
				WithDetails(map[string]any{"limit": "read-timeout", "value": readTimeout.String()})
		}
		return wire.Errorf(wire.CodeInvalidInput, "request body is not the expected JSON: %w", err)
	}
	return nil
}

// Write answers with result, or err as the endpoint's error answer.
func Write(w http.ResponseWriter, result json.RawMessage, err error) {
	if err != nil {
		WriteResult(w, wire.AgentResult{Error: wire.AsError(err)})
		return
	}
	WriteResult(w, wire.AgentResult{OK: true, Result: result})
}

// WriteResult writes one answer of the agent endpoint: an error with
// its HTTP status, a result file as JSON, a result as the page sent it.
func WriteResult(w http.ResponseWriter, out wire.AgentResult) {
	status := http.StatusOK
	if out.Error != nil {
		werr := out.Error
		switch werr.Code {
		case wire.CodeThreadNotFound:
			status = http.StatusNotFound
		case wire.CodeThreadAccessDenied:
			status = http.StatusForbidden
		}
		wire.WriteJSON(w, status, wire.AgentResult{OK: false, Error: werr})
		return
	}
	// The result is the page's JSON, checked as its frame was decoded:
	// written as it is rather than scanned and encoded again.
	body, _ := wire.AgentResultJSON(out) // cannot fail: no error to encode
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
