package persist

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
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

// A session's tools are written once, with its first record, and kept when
// later records (every status change) come without them; a delete removes
// them too. A record written by an earlier Core with the tools inline
// still reads back whole.
func TestSkillsWrittenOnceKeptAcrossRecords(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "p.db"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	skills := json.RawMessage(`{"guidance":"g","tools":[{"name":"t"}]}`)
	if err := db.Apply([]Op{{Put: &Record{ID: "s_1", Status: "idle", Skills: skills}}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Apply([]Op{{Put: &Record{ID: "s_1", Status: "running", Seq: 4}}}); err != nil {
		t.Fatal(err)
	}
	recs, err := db.Sessions()
	if err != nil || len(recs) != 1 || recs[0].Status != "running" || string(recs[0].Skills) != string(skills) {
		t.Fatalf("sessions = %+v, %v", recs, err)
	}
	// The older layout: the tools inside the record.
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(sessionsBucket).Put([]byte("s_old"), []byte(`{"id":"s_old","status":"idle","skills":{"tools":[]}}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Apply([]Op{{Delete: "s_1"}}); err != nil {
		t.Fatal(err)
	}
	recs, err = db.Sessions()
	if err != nil || len(recs) != 1 || recs[0].ID != "s_old" || string(recs[0].Skills) != `{"tools":[]}` {
		t.Fatalf("sessions after delete = %+v, %v", recs, err)
	}
	db.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket(skillsBucket).Bucket([]byte("s_1")) != nil {
			t.Error("the deleted session's tools are still stored")
		}
		return nil
	})
}
