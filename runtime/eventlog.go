package runtime

import (
	"github.com/kaoruisaac/pedelec/internal/store"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// eventLog is one session's recent events, bounded by count, so a page that
// lost its connection can ask for what it missed (resume_session lastSeq).
// The same events are written to the state database by the persister, so
// the log survives a restart of Core.
type eventLog struct {
	max    int
	events []store.Event // oldest first, seqs increasing
}

// add appends one event and returns the seq below which events were dropped
// (0 when none), for the database to drop them too.
func (l *eventLog) add(ev store.Event) (trimBelow int64) {
	l.events = append(l.events, ev)
	if over := len(l.events) - l.max; over > 0 {
		trimBelow = l.events[over].Seq
		l.events = append([]store.Event(nil), l.events[over:]...)
	}
	return trimBelow
}

// between returns the events with lastSeq < seq <= upTo, oldest first, and
// when some of them are no longer in the log, the range that was dropped.
func (l *eventLog) between(lastSeq, upTo int64) (events []store.Event, dropped *wire.EventsTruncatedData) {
	if upTo <= lastSeq {
		return nil, nil
	}
	end := len(l.events)
	for end > 0 && l.events[end-1].Seq > upTo {
		end--
	}
	i := end
	for i > 0 && l.events[i-1].Seq > lastSeq {
		i--
	}
	events = l.events[i:end]
	first := lastSeq + 1
	switch {
	case len(events) == 0:
		dropped = &wire.EventsTruncatedData{FromSeq: first, ToSeq: upTo}
	case events[0].Seq > first:
		dropped = &wire.EventsTruncatedData{FromSeq: first, ToSeq: events[0].Seq - 1}
	}
	return events, dropped
}

// last is the highest logged seq, or 0.
func (l *eventLog) last() int64 {
	if len(l.events) == 0 {
		return 0
	}
	return l.events[len(l.events)-1].Seq
}
