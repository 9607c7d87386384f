package session

import (
	"encoding/json"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Replay is the events of one session with next < seq <= upTo, still to
// be written to the page that resumed with lastSeq (runtime/page's
// replay.go says why a replay is read from the log as the socket takes
// it rather than queued whole).
type Replay struct {
	s          *Session
	page       Page
	next, upTo int64
}

// replayChunk is how many logged events one socket write carries.
const replayChunk = 64

// Next takes the next frames of r from the log and moves r past them;
// none when r is done or its page is no longer the session's.
func (r *Replay) Next() [][]byte {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.page != r.page || r.next >= r.upTo {
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
