package runtime

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// answerWriter ends one agent-endpoint request with its answer: a result
// (inline or as a file, marked untrusted or not) or an error.
type answerWriter interface {
	finish(out wire.AgentResult)
}

// plainAnswer is the one-JSON-body answer every agent request had before
// streaming.
type plainAnswer struct{ w http.ResponseWriter }

func (a plainAnswer) finish(out wire.AgentResult) { writeAgentResult(a.w, out) }

// streamAnswer is the answer a request with "stream": true asked for
// (issue 26): NDJSON, one {"progress":{...}} line per report passed on,
// then the AgentResult line, which alone has "ok". Its status is 200
// once the first line is out, so errors before the call (a wrong secret)
// keep their plain answers and statuses.
type streamAnswer struct {
	w  http.ResponseWriter
	rc *http.ResponseController

	mu       sync.Mutex
	started  bool
	finished bool
}

func newStreamAnswer(w http.ResponseWriter) *streamAnswer {
	return &streamAnswer{w: w, rc: http.NewResponseController(w)}
}

func (a *streamAnswer) startLocked() {
	if !a.started {
		a.started = true
		a.w.Header().Set("Content-Type", "application/x-ndjson")
		a.w.WriteHeader(http.StatusOK)
	}
}

// progress writes one progress line; nothing after finish.
func (a *streamAnswer) progress(p wire.Progress) {
	line, err := json.Marshal(wire.AgentStreamLine{Progress: &p})
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.finished {
		return
	}
	a.startLocked()
	a.w.Write(append(line, '\n'))
	a.rc.Flush() // a client gone shows as the request's context ending
}

func (a *streamAnswer) finish(out wire.AgentResult) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.finished = true
	if !a.started {
		writeAgentResult(a.w, out)
		return
	}
	body, jerr := wire.AgentResultJSON(out)
	if jerr != nil {
		body, _ = json.Marshal(wire.AgentResult{Error: wire.AsError(jerr)})
	}
	a.w.Write(append(body, '\n'))
}
