package persist

import (
	"path/filepath"
	"testing"
	"time"
)

// Approved origins outlive the process: written, read back after a
// reopen, and gone once deleted.
func TestGrantsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SaveGrant(GrantRecord{Origin: "https://a.example", ApprovedAt: 5, By: "cli"}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveGrant(GrantRecord{Origin: "http://localhost:3000", ApprovedAt: 6, By: "console"}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveGrant(GrantRecord{}); err == nil {
		t.Fatal("a grant without an origin was saved")
	}
	db.Close()
	db, err = Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gs, err := db.Grants()
	if err != nil || len(gs) != 2 || gs[0].Origin != "http://localhost:3000" || gs[1].By != "cli" || gs[1].ApprovedAt != 5 {
		t.Fatalf("grants = %+v, %v", gs, err)
	}
	if err := db.DeleteGrant("https://a.example"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteGrant("https://never.example"); err != nil {
		t.Fatal(err)
	}
	if gs, _ := db.Grants(); len(gs) != 1 || gs[0].Origin != "http://localhost:3000" {
		t.Fatalf("after delete: %+v", gs)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}
