package session

import (
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// endedWindow is how long an ended session's record stays, so late requests
// for it get SESSION_ENDED (and late results their settled reason) rather
// than THREAD_NOT_FOUND.
const endedWindow = 10 * time.Minute

// noTools is the empty tool registry of an ended session's record.
var noTools, _ = schema.NewRegistry(schema.Skills{})

// retire replaces an ended session in Core's table with a small record: its
// id, secret, origin and the settled-reason table late results need. The
// tools, compiled schemas, guidance and the provider's conversation are
// dropped at once instead of living on for the window, so a client that
// creates and ends sessions cannot pile them up in Core's memory.
func (c *Table) retire(s *Session) {
	final := s.retiredConsoleView()
	s.mu.Lock()
	rec := &Session{
		table: c, id: s.id, secret: s.secret, origin: s.origin, provider: s.provider, model: s.model,
		autoEnd: s.autoEnd, dirs: s.dirs, log: s.log, ordinal: s.ordinal,
		status: wire.StatusEnded, seq: s.seq, calls: pendingCalls{settled: s.calls.settled}, ended: true,
		consoleFinal: final,
	}
	s.events.release() // its bytes no longer count against every session's bound
	s.mu.Unlock()
	rec.toolset.Store(&toolSet{reg: noTools})
	c.mu.Lock()
	if c.sessions[s.id] == s {
		c.sessions[s.id] = rec
	}
	c.mu.Unlock()
	c.forget(s.id, endedWindow)
	c.releaseMemorySoon()
	if c.cfg.Retired != nil {
		c.cfg.Retired(*final)
	}
}

// releaseMemorySoon hands the memory of ended sessions back to the system
// a moment after the last of a burst of ends. Go's runtime alone would
// keep it resident for minutes (a collection runs only when the heap grows
// or every two minutes, and the scavenger then returns pages slowly), so
// Core's RSS would stay at its peak long after the sessions are gone. One
// forced collection per burst costs a few milliseconds.
func (c *Table) releaseMemorySoon() { c.memory.after(releaseDelay) }

// releaseDelay is the quiet time after the last session end before memory
// is handed back, so ending many sessions at once costs one collection.
const releaseDelay = 5 * time.Second
