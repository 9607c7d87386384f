package runtime

import (
	"encoding/json"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// consoleNotes are the few facts of a session the console shows that its
// event log (eventlog.go) does not hold: what the user asked in each turn,
// and how each call ended (the page's result or the error, when, and who
// approved it). Everything else the console shows is read from the event
// log itself, so there is one record of what happened, not two. Guarded by
// the session's mu; bounded, like the log, so a long session cannot grow it
// without end.
type consoleNotes struct {
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
	truncated  bool // the result was longer than consoleResultBytes
	err        *wire.Error
	approvedBy string
}

const (
	// consoleNoteTurns and consoleNoteCalls bound the notes of one session.
	consoleNoteTurns = 200
	consoleNoteCalls = 200
	// consoleResultBytes bounds the part of a result the console keeps: a
	// page may answer with up to MaxMessageBytes, and the console shows it
	// to a person, who needs the start of it.
	consoleResultBytes = 8 << 10
)

func (n *consoleNotes) turnStarted(id, text string, warmup bool, at time.Time) {
	if n.turns == nil {
		n.turns = map[string]turnNote{}
	}
	n.turns[id] = turnNote{text: text, startedAt: at, warmup: warmup}
	n.turnOrder = append(n.turnOrder, id)
	if len(n.turnOrder) > consoleNoteTurns {
		delete(n.turns, n.turnOrder[0])
		n.turnOrder = n.turnOrder[1:]
	}
}

func (n *consoleNotes) callStarted(id string, at time.Time) {
	if n.calls == nil {
		n.calls = map[string]*callNote{}
	}
	n.calls[id] = &callNote{startedAt: at}
	n.callOrder = append(n.callOrder, id)
	if len(n.callOrder) > consoleNoteCalls {
		delete(n.calls, n.callOrder[0])
		n.callOrder = n.callOrder[1:]
	}
}

// callSettled notes how a call ended: its result (the start of it) or error.
func (n *consoleNotes) callSettled(id string, out callOutcome, how wire.SettleOutcome, at time.Time) {
	c, ok := n.calls[id]
	if !ok {
		return
	}
	c.settledAt, c.outcome = at, how
	if out.err != nil {
		c.err = wire.AsError(out.err)
		return
	}
	if len(out.result) > consoleResultBytes {
		c.truncated = true
		return // the start of a JSON text is not JSON: the console says it was too long
	}
	c.result = out.result
}

// NoteCallApproved records who let a call that asked for consent run
// ("console", "cli", "allow_session"), for the console. The broker's
// consent step (runtime/approvals) calls it; until that is merged no call
// asks, and the console shows none as approved.
func (c *Core) NoteCallApproved(sessionID, callID, by string) {
	s, err := c.session(sessionID)
	if err != nil {
		return
	}
	s.mu.Lock()
	if n, ok := s.notes.calls[callID]; ok {
		n.approvedBy = by
		s.notes.version++
	}
	s.mu.Unlock()
	c.console.bump()
}

// copy is a snapshot of the notes, safe to read without the session's lock.
func (n *consoleNotes) copy() consoleNotes {
	out := consoleNotes{turns: make(map[string]turnNote, len(n.turns)), calls: make(map[string]*callNote, len(n.calls))}
	for id, t := range n.turns {
		out.turns[id] = t
	}
	for id, c := range n.calls {
		cc := *c
		out.calls[id] = &cc
	}
	return out
}
