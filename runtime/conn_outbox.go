package runtime

import (
	"context"

	"github.com/coder/websocket"
)

// A page's outbox, and who writes it to the socket (issue 15). A tool call
// queues frames for the page twice: the HTTP handler of the agent's request
// queues the status change and the tool_call, and the page connection's
// reader queues the settle, the status change and the response to the
// page's submit. Handing each burst to a writer goroutine cost a goroutine
// wake-up per burst, and on this kind of virtual machine parking and waking
// threads is most of what a call costs Core. So a goroutine that queues
// frames and can write them right after (hold, queue, flush) writes them
// itself when no one else is writing; frames queued by anyone else, or
// while a write is under way, are written by whoever is writing, or by the
// writer goroutine, woken only then. One goroutine writes at a time, frames
// leave in the order they were queued, and the journal is still written
// before the socket (writeFrames).

// enqueue queues one frame or replay without blocking; a page that leaves
// outboxSize of them unread is cut off. It wakes the writer goroutine
// unless someone is writing or has promised to flush.
func (c *conn) enqueue(f outFrame) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	if c.isClosed() {
		return
	}
	if len(c.queue) >= outboxSize {
		c.log.Warn("page is not reading its events; closing the connection")
		c.close(websocket.StatusPolicyViolation, "too many unread events")
		return
	}
	c.queue = append(c.queue, f)
	if !c.writing && c.holds == 0 {
		c.kickWriter()
	}
}

// kickWriter wakes the writer goroutine without blocking (outMu held).
func (c *conn) kickWriter() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// hold promises a flush: frames queued until then do not wake the writer.
// Every hold is followed by exactly one flush.
func (c *conn) hold() {
	c.outMu.Lock()
	c.holds++
	c.outMu.Unlock()
}

// flush ends a hold and writes what is queued from the calling goroutine,
// unless another goroutine is writing (it takes these frames too) or a
// replay is queued (the writer goroutine streams those, so a caller never
// waits for a resume's whole backlog).
func (c *conn) flush() {
	c.outMu.Lock()
	c.holds--
	if c.ws == nil || c.writing || len(c.queue) == 0 || c.isClosed() {
		c.outMu.Unlock()
		return
	}
	if c.queueHasReplay() {
		c.kickWriter()
		c.outMu.Unlock()
		return
	}
	c.writing = true
	c.outMu.Unlock()
	c.drain(false)
}

// writeLoop writes what others queued and did not flush themselves: frames
// queued while no one held the outbox, and replays.
func (c *conn) writeLoop(ctx context.Context) {
	for {
		select {
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		c.outMu.Lock()
		if c.writing || len(c.queue) == 0 {
			c.outMu.Unlock()
			continue // the one writing takes them
		}
		c.writing = true
		c.outMu.Unlock()
		if !c.drain(true) {
			return
		}
	}
}

// drain writes the queue until it is empty, then gives up writing; the
// caller set c.writing. Only the writer goroutine (replays true) writes
// replays: another caller meeting one hands the rest to it. It reports
// false when a write failed and the connection is closed.
func (c *conn) drain(replays bool) bool {
	// At most maxBatch frames a write, so a steady stream still leaves promptly.
	const maxBatch = 64
	for {
		c.outMu.Lock()
		n := 0
		for n < len(c.queue) && n < maxBatch && c.queue[n].replay == nil {
			n++
		}
		var next *replay
		switch {
		case n == 0 && len(c.queue) > 0 && replays:
			next = c.queue[0].replay
			c.dropQueued(1)
		case n == 0:
			if len(c.queue) > 0 {
				c.kickWriter() // a replay, for the writer goroutine
			}
			c.writing = false
			if cap(c.queue) > 64 && len(c.queue) == 0 {
				c.queue = nil // a quiet connection keeps no burst's array
			}
			c.outMu.Unlock()
			return true
		}
		frames := c.frames[:0]
		for i := range n {
			frames = append(frames, c.queue[i].data)
		}
		c.dropQueued(n)
		c.outMu.Unlock()

		var err error
		if next != nil {
			err = c.writeReplay(c.ctx, next)
		} else {
			err = c.writeFrames(c.ctx, frames)
			clear(frames)
			c.frames = frames[:0]
		}
		if err != nil {
			c.close(websocket.StatusInternalError, "write failed")
			c.outMu.Lock()
			c.writing = false
			c.outMu.Unlock()
			return false
		}
	}
}

// dropQueued removes the first n entries, keeping the array (outMu held).
func (c *conn) dropQueued(n int) {
	rest := copy(c.queue, c.queue[n:])
	clear(c.queue[rest:])
	c.queue = c.queue[:rest]
}

// queueHasReplay says whether a replay waits in the outbox (outMu held).
func (c *conn) queueHasReplay() bool {
	for _, f := range c.queue {
		if f.replay != nil {
			return true
		}
	}
	return false
}

// takeQueued removes and returns what is queued (tests of connections
// without a socket).
func (c *conn) takeQueued() []outFrame {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	q := c.queue
	c.queue = nil
	return q
}
