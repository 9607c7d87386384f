package session

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kaoruisaac/pedelec/runtime/persist"
)

func TestEventLogBetween(t *testing.T) {
	l := eventLog{max: 3}
	for seq := int64(1); seq <= 5; seq++ {
		trim := l.add(persist.Event{Seq: seq})
		if want := max(seq-2, 0); seq > 3 && trim != want {
			t.Fatalf("add %d trimmed below %d, want %d", seq, trim, want)
		}
	}
	evs, dropped := l.between(3, 5, 10)
	if len(evs) != 2 || evs[0].Seq != 4 || dropped != nil {
		t.Fatalf("between(3,5) = %+v %+v", evs, dropped)
	}
	evs, dropped = l.between(0, 4, 10)
	if len(evs) != 2 || evs[0].Seq != 3 || evs[1].Seq != 4 || dropped == nil || dropped.FromSeq != 1 || dropped.ToSeq != 2 {
		t.Fatalf("between(0,4) = %+v %+v", evs, dropped)
	}
	if evs, dropped = l.between(5, 5, 10); len(evs) != 0 || dropped != nil {
		t.Fatalf("between(5,5) = %+v %+v", evs, dropped)
	}
}

// The ring keeps the newest max events in order across many wraps, and a
// limit cuts a long range into chunks.
func TestEventLogRingWrapsAndLimits(t *testing.T) {
	l := eventLog{max: 7}
	for seq := int64(1); seq <= 100; seq++ {
		l.add(persist.Event{Seq: seq})
	}
	if l.len() != 7 || l.at(0).Seq != 94 || l.last() != 100 {
		t.Fatalf("after 100 adds: len %d, oldest %d, last %d", l.len(), l.at(0).Seq, l.last())
	}
	evs, dropped := l.between(95, 100, 3)
	if len(evs) != 3 || evs[0].Seq != 96 || evs[2].Seq != 98 || dropped != nil {
		t.Fatalf("between(95,100,3) = %+v %+v", evs, dropped)
	}
	evs, dropped = l.between(90, 100, 100)
	if len(evs) != 7 || dropped == nil || dropped.FromSeq != 91 || dropped.ToSeq != 93 {
		t.Fatalf("between(90,100) = %+v %+v", evs, dropped)
	}
}

// The log is bounded by bytes too, per session and across sessions: past
// either bound the oldest events go (the newest always stays), what was
// dropped is reported for the database to drop, and a replay from before
// it is told of the gap.
func TestEventLogBoundedByBytes(t *testing.T) {
	frame := func(n int) []byte { return make([]byte, n) }
	l := eventLog{max: 100, maxBytes: 1000}
	var trim int64
	for seq := int64(1); seq <= 10; seq++ {
		trim = l.add(persist.Event{Seq: seq, Frame: frame(300)})
	}
	if l.len() != 3 || l.bytes != 900 || trim != 8 || l.at(0).Seq != 8 {
		t.Fatalf("held %d events of %d bytes (oldest %d), trim below %d; want 3 of 900 from 8", l.len(), l.bytes, l.at(0).Seq, trim)
	}
	if _, dropped := l.between(0, 10, 10); dropped == nil || dropped.FromSeq != 1 || dropped.ToSeq != 7 {
		t.Fatalf("replay from 0: dropped %+v, want 1..7", dropped)
	}
	// One event larger than the bound stays alone.
	l.add(persist.Event{Seq: 11, Frame: frame(5000)})
	if l.len() != 1 || l.at(0).Seq != 11 {
		t.Fatalf("after a huge event: %d held, oldest %d", l.len(), l.at(0).Seq)
	}

	total := &byteTotal{max: 1000}
	a := eventLog{max: 100, maxBytes: 1 << 20, total: total}
	b := eventLog{max: 100, maxBytes: 1 << 20, total: total}
	for seq := int64(1); seq <= 3; seq++ {
		a.add(persist.Event{Seq: seq, Frame: frame(300)})
	}
	for seq := int64(1); seq <= 3; seq++ {
		b.add(persist.Event{Seq: seq, Frame: frame(300)})
	}
	if got := total.used.Load(); got > 1000+300 {
		t.Fatalf("every session's logs hold %d bytes, bound 1000", got)
	}
	a.release()
	if got, want := total.used.Load(), b.bytes; got != want {
		t.Fatalf("after a's release the total is %d, want b's %d", got, want)
	}
}

func TestSplitChat(t *testing.T) {
	s := strings.Repeat("é", 100) // 2 bytes each
	pieces := splitChat(s, 15)
	if strings.Join(pieces, "") != s {
		t.Fatal("pieces do not add up")
	}
	for _, p := range pieces {
		if len(p) > 15 || !utf8.ValidString(p) {
			t.Fatalf("piece %q", p)
		}
	}
}

// A log at the total's bound does not make another, within its share,
// drop its events: the excess is taken from the one above its share.
func TestEventLogTotalTakenAboveShare(t *testing.T) {
	frame := func(n int) []byte { return make([]byte, n) }
	asked := 0
	total := &byteTotal{max: 1000, reclaim: func() { asked++ }}
	hog := eventLog{max: 100, maxBytes: 1 << 20, total: total}
	for seq := int64(1); seq <= 10; seq++ {
		hog.add(persist.Event{Seq: seq, Frame: frame(100)})
	}
	victim := eventLog{max: 100, maxBytes: 1 << 20, total: total}
	for seq := int64(1); seq <= 3; seq++ {
		victim.add(persist.Event{Seq: seq, Frame: frame(100)})
	}
	if victim.len() != 3 || asked == 0 {
		t.Fatalf("the victim holds %d of its 3 events; reclaim asked %d times", victim.len(), asked)
	}
	if trim := hog.trimToShare(); trim == 0 || total.used.Load() > 1000 {
		t.Fatalf("trimToShare dropped below %d; the total holds %d, bound 1000", trim, total.used.Load())
	}
	if victim.len() != 3 {
		t.Fatalf("the victim lost events: %d", victim.len())
	}
}
