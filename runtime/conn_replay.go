package runtime

import (
	"context"
	"encoding/json"

	"github.com/kaoruisaac/pedelec/runtime/wire"
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
// replay of a session's logged events.
type outFrame struct {
	data   []byte
	replay *replay
}

// replay is the events of one session with next < seq <= upTo, still to be
// written to the page.
type replay struct {
	s          *Session
	next, upTo int64
}

// replayChunk is how many logged events one socket write carries.
const replayChunk = 64

// writeReplay writes r's events in order, a chunk at a time.
func (c *conn) writeReplay(ctx context.Context, r *replay) error {
	for !c.isClosed() {
		frames := r.s.replayChunk(c, r)
		if len(frames) == 0 {
			return nil
		}
		if err := c.writeFrames(ctx, frames); err != nil {
			return err
		}
	}
	return nil
}

// replayChunk takes the next frames of r from the log and moves r past
// them; none when r is done or pc is no longer the session's page.
func (s *Session) replayChunk(pc *conn, r *replay) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != pc || r.next >= r.upTo {
		return nil
	}
	events, dropped := s.events.between(r.next, r.upTo, replayChunk)
	var frames [][]byte
	if dropped != nil {
		frames = append(frames, s.truncatedFrameLocked(dropped))
		r.next = dropped.ToSeq
	}
	for _, ev := range events {
		frames = append(frames, ev.Frame)
		r.next = ev.Seq
	}
	return frames
}

// truncatedFrameLocked is the events_truncated event for a range the log
// no longer holds; its seq is the last one dropped.
func (s *Session) truncatedFrameLocked(dropped *wire.EventsTruncatedData) []byte {
	dropped.Dropped = dropped.ToSeq - dropped.FromSeq + 1
	dropped.Error = wire.Errorf(wire.CodeEventsTruncated, "events %d to %d of session %s are no longer kept; the page missed them", dropped.FromSeq, dropped.ToSeq, s.id).
		WithDetails(map[string]any{"fromSeq": dropped.FromSeq, "toSeq": dropped.ToSeq, "dropped": dropped.Dropped})
	s.log.Warn("page missed events the log no longer holds", "from", dropped.FromSeq, "to", dropped.ToSeq)
	frame, err := json.Marshal(wire.Event{Type: wire.FrameEvent, Event: wire.EventEventsTruncated, SessionID: s.id, Seq: dropped.ToSeq, Data: dropped})
	if err != nil {
		s.log.Error("encode events_truncated", "err", err)
	}
	return frame
}
