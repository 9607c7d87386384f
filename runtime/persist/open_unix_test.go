//go:build unix

package persist

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A read past the end of a mapped file (a truncated database) is a SIGBUS;
// guard makes it an unreadable database, not the end of Core.
func TestGuardTurnsAFaultIntoAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page := os.Getpagesize()
	data, err := syscall.Mmap(int(f.Fd()), 0, 2*page, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(data)
	var sum byte
	err = guard("reading it", func() error {
		touch(data, &sum)
		return nil
	})
	var bad *unreadableError
	if !errors.As(err, &bad) {
		t.Fatalf("err = %v, want an unreadable database", err)
	}
	t.Log(bad)
}
