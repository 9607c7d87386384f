package console

import (
	"encoding/json"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Notes are the few facts of a session the console shows that its event
// log does not hold: what the user asked in each turn, and how each call
// ended (the page's result or the error, when, and who approved it).
// Everything else the console shows is read from the event log itself, so
// there is one record of what happened, not two. A session keeps its Notes
// under its own lock (they have none); bounded, like the log, so a long
// session cannot grow them without end. The zero Notes are ready.
type Notes struct {
	turns     map[string]turnNote // by turn id
	turnOrder []string
	calls     map[string]*callNote // by toolRequestId
	callOrder []string
	// version counts changes, so the feed sees one that no event marks
	// (an approval noted after the call's event).
	version int64
}

type turnNote struct {
	text      string
	startedAt time.Time
	warmup    bool
}

type callNote struct {
	startedAt  time.Time
	settledAt  time.Time
	outcome    wire.SettleOutcome
	result     json.RawMessage
	truncated  bool // the result was longer than resultBytes
	err        *wire.Error
	approvedBy string
	progress   *wire.Progress
	progressAt time.Time // when the console was last woken for progress
}

const (
	// noteTurns and noteCalls bound the notes of one session.
	noteTurns = 200
	noteCalls = 200
	// resultBytes bounds the part of a result the console keeps: a page
	// may answer with up to MaxMessageBytes, and the console shows it to
	// a person, who needs the start of it.
	resultBytes = 8 << 10
)

// TurnStarted notes what the user asked in turn id.
func (n *Notes) TurnStarted(id, text string, warmup bool, at time.Time) {
	if n.turns == nil {
		n.turns = map[string]turnNote{}
	}
	n.turns[id] = turnNote{text: text, startedAt: at, warmup: warmup}
	n.turnOrder = append(n.turnOrder, id)
	if len(n.turnOrder) > noteTurns {
		delete(n.turns, n.turnOrder[0])
		n.turnOrder = n.turnOrder[1:]
	}
}

// CallStarted notes when call id began.
func (n *Notes) CallStarted(id string, at time.Time) {
	if n.calls == nil {
		n.calls = map[string]*callNote{}
	}
	n.calls[id] = &callNote{startedAt: at}
	n.callOrder = append(n.callOrder, id)
	if len(n.callOrder) > noteCalls {
		delete(n.calls, n.callOrder[0])
		n.callOrder = n.callOrder[1:]
	}
}

// CallProgress notes the call's latest progress report. It reports
// whether the console should be woken for it: at most once per every, so
// a chatty handler does not flood the console's feeds; a report in
// between is still noted, and shows with the next wake-up.
func (n *Notes) CallProgress(id string, p wire.Progress, at time.Time, every time.Duration) bool {
	c, ok := n.calls[id]
	if !ok {
		return false
	}
	c.progress = &p
	if at.Sub(c.progressAt) < every {
		return false
	}
	c.progressAt = at
	return true
}

// CallSettled notes how a call ended: its result (the start of it) or err.
func (n *Notes) CallSettled(id string, result json.RawMessage, err error, how wire.SettleOutcome, at time.Time) {
	c, ok := n.calls[id]
	if !ok {
		return
	}
	c.settledAt, c.outcome = at, how
	if err != nil {
		c.err = wire.AsError(err)
		return
	}
	if len(result) > resultBytes {
		c.truncated = true
		return // the start of a JSON text is not JSON: the console says it was too long
	}
	c.result = result
}

// CallApproved notes who let a call that asked for consent run
// ("console", "cli", "allow_session"); false if the call is not noted.
func (n *Notes) CallApproved(id, by string) bool {
	c, ok := n.calls[id]
	if ok {
		c.approvedBy = by
		n.version++
	}
	return ok
}

// ToolsChanged notes that the session's tool list changed (update_tools),
// which no event marks, so the console shows the new list.
func (n *Notes) ToolsChanged() { n.version++ }

// Version counts the changes no event marks (Key.Notes).
func (n *Notes) Version() int64 { return n.version }

// Copy is a snapshot of the notes, safe to read without the session's lock.
func (n *Notes) Copy() Notes {
	out := Notes{turns: make(map[string]turnNote, len(n.turns)), calls: make(map[string]*callNote, len(n.calls))}
	for id, t := range n.turns {
		out.turns[id] = t
	}
	for id, c := range n.calls {
		cc := *c
		out.calls[id] = &cc
	}
	return out
}
