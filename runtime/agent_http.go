package runtime

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The agent endpoint: `pedelec tool-call` and `tool-spec`, run by the
// provider's shell, dial back here with the session's secret.

func (c *Core) serveAgentToolCall(w http.ResponseWriter, r *http.Request) {
	var req wire.AgentToolCallRequest
	if err := c.readAgentRequest(w, r, &req); err != nil {
		writeAgent(w, nil, err)
		return
	}
	s, err := c.agentSession(r, req.ThreadID)
	if err != nil {
		writeAgent(w, nil, err)
		return
	}
	result, err := s.callTool(r.Context(), req.Tool, req.Args)
	writeAgent(w, result, err)
}

func (c *Core) serveAgentToolSpec(w http.ResponseWriter, r *http.Request) {
	var req wire.AgentToolSpecRequest
	if err := c.readAgentRequest(w, r, &req); err != nil {
		writeAgent(w, nil, err)
		return
	}
	s, err := c.agentSession(r, req.ThreadID)
	if err != nil {
		writeAgent(w, nil, err)
		return
	}
	def, ok := s.tools.Tool(req.Tool)
	if !ok {
		writeAgent(w, nil, s.toolNotFound(req.Tool))
		return
	}
	spec := def.Def()
	if spec.TimeoutMs == nil {
		ms := c.opts.ToolTimeout.Milliseconds()
		spec.TimeoutMs = &ms
	}
	data, _ := json.Marshal(spec)
	writeAgent(w, data, nil)
}

// readAgentRequest decodes one bounded JSON body.
func (c *Core) readAgentRequest(w http.ResponseWriter, r *http.Request, v any) error {
	limit := c.opts.MaxMessageBytes
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return wire.Errorf(wire.CodeMessageTooLarge, "request is over the %d-byte limit", limit).WithDetails(map[string]any{"limit": limit})
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
	s, err := c.session(threadID)
	if err != nil {
		return nil, err
	}
	secret := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if subtle.ConstantTimeCompare([]byte(secret), []byte(s.secret)) != 1 {
		c.log.Warn("agent request with a wrong secret", "session", threadID)
		return nil, wire.Errorf(wire.CodeThreadAccessDenied, "the secret does not match session %s; only that session's agent may call its tools", threadID)
	}
	if s.isEnded() {
		return nil, wire.Errorf(wire.CodeSessionEnded, "session %s has ended", threadID)
	}
	return s, nil
}

func writeAgent(w http.ResponseWriter, result json.RawMessage, err error) {
	status := http.StatusOK
	if err != nil {
		werr := wire.AsError(err)
		switch werr.Code {
		case wire.CodeThreadNotFound:
			status = http.StatusNotFound
		case wire.CodeThreadAccessDenied:
			status = http.StatusForbidden
		}
		writeJSON(w, status, wire.AgentResult{OK: false, Error: werr})
		return
	}
	if len(result) == 0 {
		writeJSON(w, status, wire.AgentResult{OK: true})
		return
	}
	// The result is the page's JSON, already checked: written as it is
	// rather than decoded and encoded again.
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	buf := make([]byte, 0, len(result)+len(`{"ok":true,"result":}`)+1)
	buf = append(append(append(buf, `{"ok":true,"result":`...), result...), "}\n"...)
	w.Write(buf)
}
