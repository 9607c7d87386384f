package persist

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A database cut short (a half-copied backup, a full disk) is set aside
// like any other unreadable one, whatever the length: before, one cut to
// 4,096 to 8,191 bytes (its meta pages whole, its data gone) stopped
// `serve` instead.
func TestTruncatedDatabaseSetAside(t *testing.T) {
	for _, size := range []int64{0, 100, 4095, 4096, 5000, 8191, 8192, 12000} {
		dir := t.TempDir()
		path := filepath.Join(dir, "pedelec.db")
		d, err := Open(path, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		d.Close()
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		d, err = Open(path, time.Second)
		if err != nil {
			t.Errorf("cut to %d bytes: %v", size, err)
			continue
		}
		d.Close()
	}
}
