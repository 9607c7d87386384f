package runtime

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
func (c *Core) retire(s *Session) {
	s.mu.Lock()
	rec := &Session{
		core: c, id: s.id, secret: s.secret, origin: s.origin, provider: s.provider, model: s.model,
		tools: noTools, autoEnd: s.autoEnd, dirs: s.dirs, log: s.log,
		status: wire.StatusEnded, seq: s.seq, calls: pendingCalls{settled: s.calls.settled}, ended: true,
	}
	s.mu.Unlock()
	c.mu.Lock()
	if c.sessions[s.id] == s {
		c.sessions[s.id] = rec
	}
	c.mu.Unlock()
	c.forget(s.id, endedWindow)
}
