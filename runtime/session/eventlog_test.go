package session

import (
	"testing"

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
