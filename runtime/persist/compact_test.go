package persist

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A database that held a flood and then dropped it is compacted at the
// next start: the file shrinks to what it holds, and what it holds is
// all there (before, it never shrank: 407 MB after 40 chunks of 9 MiB).
func TestBloatedDatabaseCompactedAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pedelec.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Apply([]Op{{Put: &Record{ID: "s_keep", Status: "idle"}}}); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 1<<20)
	for i := range 24 {
		if err := db.Apply([]Op{{Put: &Record{ID: "s_flood", Status: "idle"}}, {SessionID: "s_flood", Events: []Event{{Seq: int64(i + 1), Frame: big}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Apply([]Op{{Delete: "s_flood"}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	bloated, _ := os.Stat(path)
	db, err = Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now, _ := os.Stat(path)
	t.Logf("the file: %d bytes after the flood, %d after start-up", bloated.Size(), now.Size())
	if bloated.Size() < compactMinBytes || now.Size() > bloated.Size()/4 {
		t.Fatalf("the file went from %d to %d bytes: not compacted", bloated.Size(), now.Size())
	}
	if db.Recovered.CompactedFrom != bloated.Size() || db.Recovered.Sessions != 1 {
		t.Fatalf("recovery %+v, want the compaction noted and s_keep kept", db.Recovered)
	}
}
