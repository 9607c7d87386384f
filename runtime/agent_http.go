package runtime

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// The agent endpoint: `pedelec tool-call` and `tool-spec`, run by the
// provider's shell, dial back here with the session's secret.

func (c *Core) serveAgentToolCall(w http.ResponseWriter, r *http.Request) {
	var req wire.AgentToolCallRequest
	s := c.agentRequest(w, r, &req, func() string { return req.ThreadID })
	if s == nil {
		return
	}
	// Whether the result is marked untrusted is the definition's at the
	// call's start: update_tools may replace it while the call runs.
	untrusted := s.untrustedTool(req.Tool)
	if req.BudgetMs <= 0 && !req.Stream {
		result, err := s.callTool(r.Context(), req.Tool, req.Args)
		writeAgentResult(w, s.agentAnswer(req.Tool, untrusted, result, err))
		return
	}
	// A budget or progress: the call runs beside the request, which may
	// hand it over to `tool-call --wait` (agent_handoff.go).
	// details.next names the session by its agent thread id, even if the
	// agent named it by the session id: that command stands in `ps`.
	h := s.startHandoff(agentThreadID(s.id), req.Tool, req.Args)
	h.untrusted = untrusted
	s.awaitHandoff(w, r, h, budgetOf(req.BudgetMs), req.Stream)
}

func (c *Core) serveAgentToolSpec(w http.ResponseWriter, r *http.Request) {
	var req wire.AgentToolSpecRequest
	s := c.agentRequest(w, r, &req, func() string { return req.ThreadID })
	if s == nil {
		return
	}
	def, ok := s.tools().Tool(req.Tool)
	if !ok {
		writeAgent(w, nil, s.toolNotFound(req.Tool))
		return
	}
	spec := def.Def()
	if spec.TimeoutMs == nil {
		ms := c.opts.ToolTimeout.Milliseconds()
		spec.TimeoutMs = &ms
	}
	// asksConsent says outright what the annotations imply (issue 22):
	// each call waits for the user, and may end in TOOL_CALL_DENIED.
	data, _ := json.Marshal(struct {
		schema.Tool
		AsksConsent bool `json:"asksConsent,omitempty"`
	}{spec, spec.AsksConsent()})
	writeAgent(w, data, nil)
}

// agentRequest reads one agent request into req and finds the session its
// thread id names, with the caller's secret. On failure it has answered
// and returns nil.
func (c *Core) agentRequest(w http.ResponseWriter, r *http.Request, req any, threadID func() string) *Session {
	if err := c.readAgentRequest(w, r, req); err != nil {
		writeAgent(w, nil, err)
		return nil
	}
	s, err := c.agentSession(r, threadID())
	if err != nil {
		writeAgent(w, nil, err)
		return nil
	}
	return s
}

// readAgentRequest decodes one bounded JSON body.
func (c *Core) readAgentRequest(w http.ResponseWriter, r *http.Request, v any) error {
	limit := c.opts.MaxMessageBytes
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	err := dec.Decode(v)
	if err == nil {
		// Read to the end within the deadline, which lifts it (slow_clients.go).
		_, err = io.Copy(io.Discard, dec.Buffered())
		if err == nil {
			_, err = io.Copy(io.Discard, body)
		}
	}
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return wire.Errorf(wire.CodeMessageTooLarge, "request is over the %d-byte limit", limit).WithDetails(map[string]any{"limit": limit})
		case isTimeout(err):
			t := c.opts.Limits.ReadTimeout
			return wire.Errorf(wire.CodeInvalidInput, "the request body did not arrive within %s (pedelec serve --read-timeout)", t).
				WithDetails(map[string]any{"limit": "read-timeout", "value": t.String()})
		}
		return wire.Errorf(wire.CodeInvalidInput, "request body is not the expected JSON: %w", err)
	}
	return nil
}

// agentSession finds the session and checks the caller holds its secret.
func (c *Core) agentSession(r *http.Request, threadID string) (*Session, error) {
	if threadID == "" {
		return nil, wire.Errorf(wire.CodeInvalidInput, "threadId is required")
	}
	// An unknown session and a wrong secret get the same answer, so a
	// caller without the secret cannot even learn whether an id exists.
	s, _ := c.sessionForAgent(threadID)
	want := unknownSessionSecret()
	if s != nil {
		want = s.secret
	}
	secret, bearer := bearerToken(r)
	if !bearer || subtle.ConstantTimeCompare([]byte(secret), []byte(want)) != 1 || s == nil {
		c.refusals.note("agent-secret", "", "refused agent requests: unknown session or wrong secret", "session", threadID,
			"hint", "only the session's own agent, which Core gives "+wire.EnvSecret+", may call its tools")
		return nil, wire.Errorf(wire.CodeThreadAccessDenied,
			"no session %s with this secret; only a session's own agent (with %s from Core, sent as \"Authorization: Bearer <secret>\") may call its tools", threadID, wire.EnvSecret).
			WithDetails(map[string]any{"sessionId": threadID})
	}
	if s.isEnded() {
		return nil, wire.Errorf(wire.CodeSessionEnded, "session %s has ended (the page closed it or went away): its tools cannot be called any more; stop calling them and tell the user", threadID)
	}
	return s, nil
}

// unknownSessionSecret is compared against when no session has the id, so
// both refusals take the same time. Made on first use: every pedelec
// process (tool-call too) runs this package's init.
var unknownSessionSecret = sync.OnceValue(func() string { return newID("k_") })

func writeAgent(w http.ResponseWriter, result json.RawMessage, err error) {
	if err != nil {
		writeAgentResult(w, wire.AgentResult{Error: wire.AsError(err)})
		return
	}
	writeAgentResult(w, wire.AgentResult{OK: true, Result: result})
}

// writeAgentResult writes one answer of the agent endpoint: an error with
// its HTTP status, a result file as JSON, a result as the page sent it.
func writeAgentResult(w http.ResponseWriter, out wire.AgentResult) {
	status := http.StatusOK
	if out.Error != nil {
		werr := out.Error
		switch werr.Code {
		case wire.CodeThreadNotFound:
			status = http.StatusNotFound
		case wire.CodeThreadAccessDenied:
			status = http.StatusForbidden
		}
		writeJSON(w, status, wire.AgentResult{OK: false, Error: werr})
		return
	}
	// The result is the page's JSON, checked as its frame was decoded:
	// written as it is rather than scanned and encoded again.
	body, _ := wire.AgentResultJSON(out) // cannot fail: no error to encode
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
