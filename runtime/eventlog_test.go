package runtime

import (
	"testing"

	"github.com/kaoruisaac/pedelec/internal/store"
)

func TestEventLogBetween(t *testing.T) {
	l := eventLog{max: 3}
	for seq := int64(1); seq <= 5; seq++ {
		trim := l.add(store.Event{Seq: seq})
		if want := max(seq-2, 0); seq > 3 && trim != want {
			t.Fatalf("add %d trimmed below %d, want %d", seq, trim, want)
		}
	}
	evs, dropped := l.between(3, 5)
	if len(evs) != 2 || evs[0].Seq != 4 || dropped != nil {
		t.Fatalf("between(3,5) = %+v %+v", evs, dropped)
	}
	evs, dropped = l.between(0, 4)
	if len(evs) != 2 || evs[0].Seq != 3 || evs[1].Seq != 4 || dropped == nil || dropped.FromSeq != 1 || dropped.ToSeq != 2 {
		t.Fatalf("between(0,4) = %+v %+v", evs, dropped)
	}
	if evs, dropped = l.between(5, 5); len(evs) != 0 || dropped != nil {
		t.Fatalf("between(5,5) = %+v %+v", evs, dropped)
	}
}
