package persist

import (
	"path/filepath"
	"testing"
	"time"
)

// The console's history keeps the newest max entries, oldest first, and
// survives a reopen.
func TestHistoryBoundedAndDurable(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 5; i++ {
		if err := db.SaveHistory(i*1000, "s_"+string(rune('0'+i)), []byte(`{"n":`+string(rune('0'+i))+`}`), 3); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.History()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || string(got[0]) != `{"n":3}` || string(got[2]) != `{"n":5}` {
		t.Fatalf("history = %q, want entries 3, 4, 5", got)
	}
}
