package nolink

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirReplacesLinksAndFilesNeverFollowingThem(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	os.Symlink(elsewhere, filepath.Join(root, "a"))
	os.MkdirAll(filepath.Join(root, "b"), 0o700)
	os.WriteFile(filepath.Join(root, "b", "c"), []byte("x"), 0o600)
	for _, names := range [][]string{{"a", "x"}, {"b", "c"}, {"new", "deeper"}} {
		dir, err := Dir(root, names...)
		if err != nil {
			t.Fatal(err)
		}
		for p := dir; p != root; p = filepath.Dir(p) {
			if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
				t.Fatalf("%s: %v, %v; want a directory of its own", p, fi, err)
			}
		}
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Fatalf("Dir made %s in the directory a link pointed to", entries[0].Name())
	}
	if fi, _ := os.Stat(filepath.Join(root, "new")); fi.Mode().Perm() != 0o700 {
		t.Errorf("a new directory's mode = %v, want 0700", fi.Mode().Perm())
	}
}

func TestWriteFileReplacesALinkNeverWritingThroughIt(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	path := filepath.Join(dir, "settings.json")
	os.Symlink(victim, path)
	if err := WriteFile(path, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious" {
		t.Fatalf("the link's target holds %q", data)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, %v; want a regular 0600 file", path, fi, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d entries left, want the file alone (no temporary)", len(entries))
	}
}
