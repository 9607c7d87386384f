package session

import (
	"sort"
	"sync/atomic"

	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// eventLog is one session's recent events, so a page that lost its
// connection can ask for what it missed (resume_session lastSeq). The same
// events are written to the state database by persist.Writer, so the log
// survives a restart of Core; what the log drops, the database drops too
// (add's trimBelow).
//
// It is bounded by count (max), by the bytes of its frames (maxBytes), and
// by the bytes of every session's log together (total): a count alone let
// 40 chat chunks of 9 MiB take Core to 1.13 GB. Past a bound the oldest
// events go; the newest one always stays. The total is taken from the logs
// that hold more than their share of it (the total over the logs), never
// from one within its share: when the session that logged last paid, a
// hostile page's sessions filled the total and every other app's session
// then dropped its own history, down to its newest event.
//
// It is a ring: each event takes the oldest one's place once the log is
// full, so logging costs the same at the 2,000th event as at the first.
type eventLog struct {
	max      int
	maxBytes int64      // 0: no bound by bytes
	total    *byteTotal // every session's logs; nil: no such bound

	buf   []persist.Event // ring storage, grown up to max
	head  int             // index in buf of the oldest event
	n     int             // events held
	bytes int64           // their frames' bytes
}

// byteTotal is the bytes of every session's event log, against its bound.
type byteTotal struct {
	used atomic.Int64
	logs atomic.Int64 // logs that hold events
	max  int64
	// reclaim asks for the excess to be taken from the logs above their
	// share (Table.reclaimEventBytes); called under the logging session's
	// lock, so it takes none itself. Nil: no one to ask (tests).
	reclaim func()
}

func (t *byteTotal) over() bool { return t != nil && t.max > 0 && t.used.Load() > t.max }

// share is one log's part of the total.
func (t *byteTotal) share() int64 { return t.max / max(1, t.logs.Load()) }

// overShare: the total is past its bound and this log holds more than its share.
func (l *eventLog) overShare() bool { return l.total.over() && l.bytes > l.total.share() }

func (t *byteTotal) add(n int64) {
	if t != nil {
		t.used.Add(n)
	}
}

func (t *byteTotal) addLog(n int64) {
	if t != nil {
		t.logs.Add(n)
	}
}

// add appends one event and returns the seq below which events were dropped
// (0 when none), for the database to drop them too.
func (l *eventLog) add(ev persist.Event) (trimBelow int64) {
	if l.max <= 0 {
		return 0
	}
	dropped := false
	if l.n == l.max {
		l.dropOldest()
		dropped = true
	}
	l.push(ev)
	for l.n > 1 && ((l.maxBytes > 0 && l.bytes > l.maxBytes) || l.overShare()) {
		l.dropOldest()
		dropped = true
	}
	if l.total.over() && l.total.reclaim != nil {
		l.total.reclaim()
	}
	if dropped {
		return l.at(0).Seq
	}
	return 0
}

// trimToShare drops the oldest events while the total is past its bound
// and this log holds more than its share, and returns the seq below which
// events were dropped (0: none).
func (l *eventLog) trimToShare() (trimBelow int64) {
	dropped := false
	for l.n > 1 && l.overShare() {
		l.dropOldest()
		dropped = true
	}
	if dropped {
		return l.at(0).Seq
	}
	return 0
}

func (l *eventLog) push(ev persist.Event) {
	if l.n == len(l.buf) {
		grown := make([]persist.Event, l.n, min(l.max, max(16, 2*l.n)))
		for i := range l.n {
			grown[i] = l.at(i)
		}
		l.buf, l.head = grown[:cap(grown)], 0
	}
	l.buf[(l.head+l.n)%len(l.buf)] = ev
	if l.n == 0 {
		l.total.addLog(1)
	}
	l.n++
	size := int64(len(ev.Frame))
	l.bytes += size
	l.total.add(size)
}

func (l *eventLog) dropOldest() {
	old := &l.buf[l.head]
	size := int64(len(old.Frame))
	l.bytes -= size
	l.total.add(-size)
	*old = persist.Event{}
	l.head = (l.head + 1) % len(l.buf)
	l.n--
	if l.n == 0 {
		l.total.addLog(-1)
	}
}

// release gives the log's bytes back to the total: the session is retired.
func (l *eventLog) release() {
	l.total.add(-l.bytes)
	if l.n > 0 {
		l.total.addLog(-1)
	}
	l.buf, l.head, l.n, l.bytes = nil, 0, 0, 0
}

// len is how many events the log holds.
func (l *eventLog) len() int { return l.n }

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

// reclaimEventBytes takes the event logs' excess over their total from the
// sessions that hold more than their share, in the background: it is
// asked under the logging session's lock, and takes Table.mu and then
// each session's lock in turn (the order in table.go).
func (t *Table) reclaimEventBytes() {
	if !t.reclaiming.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer t.reclaiming.Store(false)
		t.mu.Lock()
		list := make([]*Session, 0, len(t.sessions))
		for _, s := range t.sessions {
			list = append(list, s)
		}
		t.mu.Unlock()
		for _, s := range list {
			if !t.eventBytes.over() {
				return
			}
			s.trimEventsToShare()
		}
	}()
}

// trimEventsToShare drops the session's oldest events past its share of
// the total, in memory and in the state database.
func (s *Session) trimEventsToShare() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return
	}
	if trim := s.events.trimToShare(); trim > 0 {
		s.table.persist.Put(persist.Op{SessionID: s.id, TrimBelow: trim})
	}
}
