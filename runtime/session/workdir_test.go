package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/ids"
)

// A work directory's name does not contain its session's id, and tells the
// id back only to a reader of the directory itself (issue 20: the path is
// in every provider's command line, public through ps).
func TestWorkDirNameHidesSessionID(t *testing.T) {
	state := t.TempDir()
	id := ids.New("s_")
	d, err := makeWorkDirs(state, id, "/bin/false")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{d.root, d.work, d.bin} {
		if strings.Contains(p, id) || strings.Contains(p, strings.TrimPrefix(id, "s_")) {
			t.Errorf("work directory path %s contains the session id", p)
		}
	}
	if d.root != WorkDir(state, id) {
		t.Errorf("makeWorkDirs made %s, WorkDir says %s", d.root, WorkDir(state, id))
	}
	if got := WorkDirSessionID(state, filepath.Base(d.root)); got != id {
		t.Errorf("WorkDirSessionID = %q, want %q", got, id)
	}
	if fi, err := os.Stat(d.root); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("work directory mode: %v %v", fi, err)
	}
}

// A session restored from a Core that named its directory after the id
// keeps its files, under the new name; its bin links are made again.
func TestWorkDirOfOldLayoutIsMoved(t *testing.T) {
	state := t.TempDir()
	id := ids.New("s_")
	old := filepath.Join(state, "sessions", id)
	if err := os.MkdirAll(filepath.Join(old, "work", assets.DirName), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(old, "work", assets.DirName, "kept.txt"), []byte("x"), 0o600)
	os.MkdirAll(filepath.Join(old, "bin"), 0o700)
	os.Symlink("/old/pedelec", filepath.Join(old, "bin", "pedelec"))

	d, err := makeWorkDirs(state, id, "/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d.work, assets.DirName, "kept.txt")); err != nil {
		t.Errorf("the session's asset did not move: %v", err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the old directory is still there: %v", err)
	}
	if target, _ := os.Readlink(filepath.Join(d.bin, "pedelec")); target != "/bin/true" {
		t.Errorf("bin/pedelec links to %q, want the running binary", target)
	}
}

// A name that is not one of Core's own ids never names a directory to move.
func TestWorkDirOldLayoutNeedsPlainID(t *testing.T) {
	for _, id := range []string{"s_../../x", "../s_x", "s_a/b", "x_1"} {
		if isOldWorkDirName(id) {
			t.Errorf("isOldWorkDirName(%q) = true", id)
		}
	}
}
