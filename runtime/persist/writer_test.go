package persist

import (
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/log"
)

// Records of one session queued together are coalesced into the newest,
// which keeps the tools the first carried; events are all written, in
// order; flush returns once everything queued is committed.
func TestWriterCoalescesRecordsKeepsEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p := NewWriter(db, log.New(io.Discard))
	skills := json.RawMessage(`{"tools":[{"name":"a"}]}`)
	p.Put(Op{Put: &Record{ID: "s_1", Status: "idle", Skills: skills}})
	for seq := int64(1); seq <= 100; seq++ {
		p.Put(Op{SessionID: "s_1", Events: []Event{{Seq: seq, Frame: []byte(`{}`)}}})
		p.Put(Op{Put: &Record{ID: "s_1", Status: "running", Seq: seq}})
	}
	p.mu.Lock()
	queued := len(p.queue)
	p.mu.Unlock()
	if queued > 102 {
		t.Errorf("%d ops queued for 100 events and 101 records of one session; records were not coalesced", queued)
	}
	p.Flush()
	recs, err := db.Sessions()
	if err != nil || len(recs) != 1 || recs[0].Seq != 100 || recs[0].Status != "running" || string(recs[0].Skills) != string(skills) {
		t.Fatalf("stored %+v, %v", recs, err)
	}
	evs, err := db.Events("s_1")
	if err != nil || len(evs) != 100 || evs[99].Seq != 100 {
		t.Fatalf("stored %d events, %v", len(evs), err)
	}
	p.Close()
}
