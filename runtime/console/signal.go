package console

import "sync"

// Signal wakes the console's feeds when anything they show may have
// changed: a session's event, a session made or forgotten, an approval.
// Its mu is a leaf: the session domain bumps it under its own locks
// (runtime/session/table.go, above Table). The zero Signal is ready.
type Signal struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every Bump
}

// Bump wakes every feed waiting on Wait's channel.
func (c *Signal) Bump() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// Wait returns a channel closed at the next Bump.
func (c *Signal) Wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}
