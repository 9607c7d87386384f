package session

import (
	"sort"

	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// eventLog is one session's recent events, bounded by count, so a page that
// lost its connection can ask for what it missed (resume_session lastSeq).
// The same events are written to the state database by persist.Writer, so
// the log survives a restart of Core.
//
// It is a ring: once full, each event overwrites the oldest in place, so
// logging costs the same at the 2,000th event as at the first (a copy of
// the whole log per event, as a slice that drops its head, cost a busy
// session ~2,000 moves per event).
type eventLog struct {
	max  int
	buf  []persist.Event // grows to max, then wraps
	head int             // index in buf of the oldest event once buf is full
}

// add appends one event and returns the seq below which events were dropped
// (0 when none), for the database to drop them too.
func (l *eventLog) add(ev persist.Event) (trimBelow int64) {
	if l.max <= 0 {
		return 0
	}
	if len(l.buf) < l.max {
		l.buf = append(l.buf, ev)
		return 0
	}
	l.buf[l.head] = ev
	l.head = (l.head + 1) % len(l.buf)
	return l.at(0).Seq
}

// len is how many events the log holds.
func (l *eventLog) len() int { return len(l.buf) }

// at is the i-th held event, oldest first.
func (l *eventLog) at(i int) persist.Event {
	return l.buf[(l.head+i)%len(l.buf)]
}

// between returns at most limit events with lastSeq < seq <= upTo, oldest
// first, and when some of them are no longer in the log, the range that was
// dropped. Seqs increase along the log but may skip (a restored session
// goes on after a page's lastSeq), so the ends are found by search. A
// caller that got limit events asks again from the last one's seq.
func (l *eventLog) between(lastSeq, upTo int64, limit int) (events []persist.Event, dropped *wire.EventsTruncatedData) {
	if upTo <= lastSeq {
		return nil, nil
	}
	n := l.len()
	i := sort.Search(n, func(i int) bool { return l.at(i).Seq > lastSeq })
	end := sort.Search(n, func(i int) bool { return l.at(i).Seq > upTo })
	first := lastSeq + 1
	// Seqs the log lacks were trimmed, or lost with a crashed Core before
	// they were written down: either way the page missed them.
	switch {
	case i == end:
		dropped = &wire.EventsTruncatedData{FromSeq: first, ToSeq: upTo}
	case l.at(i).Seq > first:
		dropped = &wire.EventsTruncatedData{FromSeq: first, ToSeq: l.at(i).Seq - 1}
	}
	for ; i < end && len(events) < limit; i++ {
		events = append(events, l.at(i))
	}
	return events, dropped
}

// last is the highest logged seq, or 0.
func (l *eventLog) last() int64 {
	if l.len() == 0 {
		return 0
	}
	return l.at(l.len() - 1).Seq
}
