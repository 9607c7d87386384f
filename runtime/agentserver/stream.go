package agentserver

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Stream is the answer a request with "stream": true asked for
// (issue 26): NDJSON, one {"progress":{...}} line per report passed on,
// then the AgentResult line, which alone has "ok". Its status is 200
// once the first line is out, so errors before the call (a wrong secret)
// keep their plain answers and statuses.
type Stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController

	mu       sync.Mutex
	started  bool
	finished bool
}

// NewStream starts no output yet: the first Progress or Finish does.
func NewStream(w http.ResponseWriter) *Stream {
	return &Stream{w: w, rc: http.NewResponseController(w)}
}

func (a *Stream) startLocked() {
	if !a.started {
		a.started = true
		a.w.Header().Set("Content-Type", "application/x-ndjson")
		a.w.WriteHeader(http.StatusOK)
	}
}

// Progress writes one progress line; nothing after finish.
func (a *Stream) Progress(p wire.Progress) {
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

// Finish writes the answer; nothing is written after it.
func (a *Stream) Finish(out wire.AgentResult) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.finished = true
	if !a.started {
		WriteResult(a.w, out)
		return
	}
	body, jerr := wire.AgentResultJSON(out)
	if jerr != nil {
		body, _ = json.Marshal(wire.AgentResult{Error: wire.AsError(jerr)})
	}
	a.w.Write(append(body, '\n'))
}
