//go:build linux

package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A manifest of 64 KiB or more is mapped, and reads the same as one read.
func TestReadManifestMapsLargeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	want := bytes.Repeat([]byte(" "), mapMinBytes)
	copy(want, "[]")
	if err := os.WriteFile(p, want, 0o600); err != nil {
		t.Fatal(err)
	}
	_, data, release, err := readManifest(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if !bytes.Equal(data, want) {
		t.Fatal("mapped bytes differ from the file")
	}
	if cap(data) != len(want) { // a read buffer has bytes.MinRead spare
		t.Errorf("cap %d: the file was read, not mapped", cap(data))
	}
}

// A mapped manifest truncated while it is checked is reported as an input
// error naming the file, not a crash (SIGBUS on the lost pages).
func TestMappedManifestTruncatedIsAnInputError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "shrinks.json")
	if err := os.WriteFile(p, bytes.Repeat([]byte(" "), 4*mapMinBytes), 0o600); err != nil {
		t.Fatal(err)
	}
	_, data, release, err := readManifest(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	err = guardMapped("shrinks.json", data, func() error {
		sink = data[len(data)-1] // the page is gone: SIGBUS
		t.Fatal("read a truncated page")
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "shrinks.json: the manifest changed while it was read") {
		t.Fatalf("err = %v", err)
	}
}

// A fault outside the manifest is a bug: it stays a panic.
func TestGuardMappedRepanicsOtherFaults(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a nil dereference was swallowed")
		}
	}()
	var p *int
	_ = guardMapped("x.json", []byte("[]"), func() error { return errorOf(*p) })
}

func errorOf(int) error { return nil }

var sink byte
