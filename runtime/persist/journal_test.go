package persist

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// What was written to the journal but never committed (Core died between)
// is in the database at the next Open, in order; a torn last entry (Core
// died inside the write) is left out, and the segments are gone after.
func TestJournalReplayedAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	j := db.Journal()
	ops := []Op{
		{Put: &Record{ID: "s_1", Status: "idle", Skills: json.RawMessage(`{"tools":[]}`)}},
		{SessionID: "s_1", Events: []Event{{Seq: 1, Frame: []byte(`{"seq":1}`)}, {Seq: 2, Frame: []byte(`{"seq":2}`)}}},
		{Put: &Record{ID: "s_1", Status: "running", Seq: 2}},
		{Put: &Record{ID: "s_2", Status: "idle"}},
		{Delete: "s_2"},
		{SessionID: "s_1", Events: []Event{{Seq: 3, Frame: []byte(`{"seq":3}`)}}, TrimBelow: 2},
	}
	for _, op := range ops[:3] {
		j.Append(op)
	}
	if _, err := j.Rotate(); err != nil { // a batch taken but never committed
		t.Fatal(err)
	}
	for _, op := range ops[3:] {
		j.Append(op)
	}
	if err := j.Write(); err != nil {
		t.Fatal(err)
	}
	// Core dies: no commit, no Close. A torn entry at the end.
	seg := segmentPath(path, j.Current())
	f, _ := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte{0x40, 1, 2, 3, 4, 'P', 9})
	f.Close()
	j.f.Close()
	db.bolt.Close()

	db, err = Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Recovered.Replayed != len(ops) {
		t.Errorf("replayed %d ops, want %d", db.Recovered.Replayed, len(ops))
	}
	recs, err := db.Sessions()
	if err != nil || len(recs) != 1 || recs[0].ID != "s_1" || recs[0].Status != "running" || string(recs[0].Skills) != `{"tools":[]}` {
		t.Fatalf("sessions after replay = %+v, %v", recs, err)
	}
	evs, err := db.Events("s_1")
	if err != nil || len(evs) != 2 || evs[0].Seq != 2 || evs[1].Seq != 3 {
		t.Fatalf("events after replay = %+v, %v", evs, err)
	}
	segs, _ := segments(path)
	if len(segs) != 1 || segs[0] != db.Journal().Current() {
		t.Errorf("segments after Open = %v, want only the new one", segs)
	}
}

// A clean Close with nothing pending leaves no journal behind.
func TestJournalCleanCloseLeavesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if segs, _ := segments(path); len(segs) != 0 {
		t.Fatalf("segments after a clean close: %v", segs)
	}
}

// Entries decode as they were encoded, and a flipped bit stops the replay
// at that entry.
func TestJournalEntriesCheckSummed(t *testing.T) {
	j := &Journal{}
	j.Append(Op{SessionID: "s_1", Events: []Event{{Seq: 7, Frame: []byte(`{"a":1}`)}}, TrimBelow: 3})
	j.Append(Op{Delete: "s_9"})
	ops, _, _ := decodeOps(j.buf)
	if len(ops) != 2 || ops[0].Events[0].Seq != 7 || string(ops[0].Events[0].Frame) != `{"a":1}` || ops[0].TrimBelow != 3 || ops[1].Delete != "s_9" {
		t.Fatalf("decoded %+v", ops)
	}
	bad := append([]byte(nil), j.buf...)
	bad[len(bad)-1] ^= 1
	if ops, _, intact := decodeOps(bad); len(ops) != 1 || intact {
		t.Fatalf("decoded %d ops from a journal whose second entry is corrupt, want 1", len(ops))
	}
}
