package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The generated files are what the lists make of them now: CI's check that
// nobody edited a table by hand or changed a list without `go generate
// ./runtime/wire`.
func TestGeneratedFilesAreFresh(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := render(root)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `go generate ./runtime/wire` and commit the result", path)
		}
	}
}

// A marker missing from docs/errors.md is an error, not a table written
// somewhere else or dropped.
func TestMissingMarkersAreAnError(t *testing.T) {
	codes := docSections["docs/errors.md"][0]
	begin, end := markers(codes)
	for _, doc := range []string{"no markers", end + "\n" + begin, begin + " only"} {
		if _, err := replaceSection([]byte(doc), codes); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
	out, err := replaceSection([]byte("before\n"+begin+"\nold\n"+end+"\nafter\n"), codes)
	if err != nil || !bytes.HasPrefix(out, []byte("before\n"+begin+"\n| code |")) || !bytes.HasSuffix(out, []byte(end+"\nafter\n")) {
		t.Errorf("replaced: %q, %v", out, err)
	}
}
