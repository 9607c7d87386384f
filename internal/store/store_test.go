package store

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestApplyAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Record{ID: "s_1", Origin: "http://a", Provider: "script", Status: "idle", Seq: 3, ProviderThread: "th"}
	ev := func(seq int64) Event { return Event{Seq: seq, Frame: []byte(`{"seq":` + string(rune('0'+seq)) + `}`)} }
	if err := db.Apply([]Op{{Put: rec}, {SessionID: "s_1", Events: []Event{ev(1), ev(2), ev(3)}}, {SessionID: "s_1", TrimBelow: 2}}); err != nil {
		t.Fatal(err)
	}
	// A second Core on the same file is refused, not blocked forever.
	if _, err := Open(path, 100*time.Millisecond); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v", err)
	}
	db.Close()
	db, err = Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recs, err := db.Sessions()
	if err != nil || len(recs) != 1 || recs[0].ProviderThread != "th" || recs[0].Seq != 3 {
		t.Fatalf("sessions = %+v, %v", recs, err)
	}
	evs, err := db.Events("s_1")
	if err != nil || len(evs) != 2 || evs[0].Seq != 2 || evs[1].Seq != 3 {
		t.Fatalf("events after trim = %+v, %v", evs, err)
	}
	if err := db.Apply([]Op{{Delete: "s_1"}}); err != nil {
		t.Fatal(err)
	}
	if recs, _ := db.Sessions(); len(recs) != 0 {
		t.Fatalf("after delete: %+v", recs)
	}
	if evs, _ := db.Events("s_1"); len(evs) != 0 {
		t.Fatalf("events after delete: %+v", evs)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}
