package page

import (
	"context"

	"github.com/kaoruisaac/pedelec/runtime/session"
)

// A page that resumes with lastSeq may have missed up to --event-log-size
// events, more than its outbox holds. Pushing them all into the outbox
// would cut off the page by its own resume ("too many unread events"), and
// holding copies of them would cost memory the log already spends. So the
// outbox gets one replay entry instead; the connection's writer reads the
// events from the session's log a chunk at a time, as fast as the socket
// takes them. Frames queued after the entry (live events, responses) wait
// behind it, so the page gets every event once, in seq order, and the
// outbox limit still cuts off a page that stops reading while live events
// pile up. Events the log drops before the writer reaches them are
// announced by events_truncated, as for a page that was away too long.

// outFrame is one entry of a connection's outbox: an encoded frame, or a
// replay of a session's logged events (session.Replay).
type outFrame struct {
	data   []byte
	replay *session.Replay
}

// writeReplay writes r's events in order, a chunk at a time.
func (c *conn) writeReplay(ctx context.Context, r *session.Replay) error {
	for !c.Closed() {
		frames := r.Next()
		if len(frames) == 0 {
			return nil
		}
		if err := c.writeFrames(ctx, frames); err != nil {
			return err
		}
	}
	return nil
}
