package runtime

import (
	"context"
	"time"
)

// Lazy frames (issue 15: the page's CPU per call). Every tool call moves
// the session to waiting_tool_result and back to running, and the page's
// result gets an acknowledgement. Those frames inform; nothing waits on
// them. Sent as they come, a call costs the page two messages from Core:
// the tool_call (with its status change), then the acknowledgement and
// the status change back. In the browser each message costs far more than
// the SDK's work for it (a task on the page's main thread, hops through
// the network service), and in Core each is a socket write.
//
// So on a batch-capable connection the writer holds frames marked lazy for
// up to lazyHold, and sends them with whatever comes next: an agent that
// calls again at once makes the page's next message carry the last call's
// ending and the new tool_call together, one message per call. Any other
// frame (a tool_call, text, a turn's end, an error, any other response)
// goes at once and takes the held ones along, so the order is unchanged and
// nothing a page acts on waits. An agent that thinks between calls leaves
// the held frames to go out lazyHold later: a status shown a millisecond
// late. The frames are in the session's log and journal as they are
// emitted; holding changes only when the socket gets them.

// lazyHold is the longest a lazy frame waits for company: well under what a
// person can see, and about what an agent's next call takes to arrive when
// it calls in a loop.
const lazyHold = time.Millisecond

// waitLazy waits until deadline for the next queued frame and hands it to
// take; false when none came (or the connection ended), and the writer
// sends what it holds.
func (c *conn) waitLazy(ctx context.Context, deadline time.Time, take func(outFrame)) bool {
	wait := time.Until(deadline)
	if wait <= 0 {
		return false
	}
	if c.lazy == nil {
		c.lazy = time.NewTimer(wait)
	} else {
		c.lazy.Reset(wait)
	}
	defer c.lazy.Stop()
	select {
	case f := <-c.out:
		take(f)
		return true
	case <-c.lazy.C:
	case <-c.closed:
	case <-ctx.Done():
	}
	return false
}
