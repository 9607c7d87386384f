package runtime

import (
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/internal/store"
)

// Records of one session queued together are coalesced into the newest,
// which keeps the tools the first carried; events are all written, in
// order; flush returns once everything queued is committed.
func TestPersisterCoalescesRecordsKeepsEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := store.Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p := newPersister(db, log.New(io.Discard))
	skills := json.RawMessage(`{"tools":[{"name":"a"}]}`)
	p.put(store.Op{Put: &store.Record{ID: "s_1", Status: "idle", Skills: skills}})
	for seq := int64(1); seq <= 100; seq++ {
		p.put(store.Op{SessionID: "s_1", Events: []store.Event{{Seq: seq, Frame: []byte(`{}`)}}})
		p.put(store.Op{Put: &store.Record{ID: "s_1", Status: "running", Seq: seq}})
	}
	p.mu.Lock()
	queued := len(p.queue)
	p.mu.Unlock()
	if queued > 102 {
		t.Errorf("%d ops queued for 100 events and 101 records of one session; records were not coalesced", queued)
	}
	p.flush()
	recs, err := db.Sessions()
	if err != nil || len(recs) != 1 || recs[0].Seq != 100 || recs[0].Status != "running" || string(recs[0].Skills) != string(skills) {
		t.Fatalf("stored %+v, %v", recs, err)
	}
	evs, err := db.Events("s_1")
	if err != nil || len(evs) != 100 || evs[99].Seq != 100 {
		t.Fatalf("stored %d events, %v", len(evs), err)
	}
	p.close()
}
