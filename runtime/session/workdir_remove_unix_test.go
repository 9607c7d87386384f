//go:build unix

package session

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A page's script agent makes a directory tree as deep as one message's
// path allows ("mkdir a/a/a/…": half a million levels in 1 MiB), and any
// agent's shell can go deeper. os.RemoveAll holds a descriptor per level,
// so removing such a work directory used one per level of Core's, and
// failed with "too many open files" once the tree was deeper than Core's
// limit, leaving it behind for every later start to fail on again, with
// every other descriptor Core needed meanwhile refused.
func TestRemoveTreeOfDeepWorkDirHoldsFewDescriptors(t *testing.T) {
	const depth, limit = 3000, 512
	dir := filepath.Join(t.TempDir(), "w_deep")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("a/", depth) + "x"
	if err := r.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a/f", deep + "/f", strings.Repeat("a/", depth/2) + "f"} {
		if err := r.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Symlink("/", "a/root"); err != nil { // never followed
		t.Fatal(err)
	}
	r.Close()

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	low := old
	low.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skipf("SKIPPED: cannot lower the descriptor limit: %v", err)
	}
	err = RemoveTree(dir)
	syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	if err != nil {
		t.Fatalf("RemoveTree of a %d-deep tree with %d descriptors: %v", depth, limit, err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Fatalf("the tree is still there: %v", err)
	}
}

// A work directory that is a link is removed as a link: what it points to
// is left alone.
func TestRemoveTreeOfLinkRemovesOnlyTheLink(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "target")
	if err := os.MkdirAll(filepath.Join(target, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(target, "sub", "keep"), []byte("x"), 0o600)
	link := filepath.Join(base, "w_link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := RemoveTree(link); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Errorf("the link is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(target, "sub", "keep")); err != nil {
		t.Errorf("what the link pointed to was touched: %v", err)
	}
}

// A stale work directory whose session-id is a FIFO (or any file but a
// small regular one) tells no session: start-up waited forever to read it.
func TestWorkDirSessionIDOfFIFODoesNotHang(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "sessions", "w_fifo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, sessionIDFile), 0o600); err != nil {
		t.Skipf("SKIPPED: no FIFOs here: %v", err)
	}
	got := make(chan string, 1)
	go func() { got <- WorkDirSessionID(state, "w_fifo") }()
	select {
	case id := <-got:
		if id != "" {
			t.Errorf("WorkDirSessionID of a FIFO = %q, want none", id)
		}
	case <-time.After(5 * time.Second):
		// Let the reader go, so the test binary can end.
		if f, err := os.OpenFile(filepath.Join(dir, sessionIDFile), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("WorkDirSessionID still waits on the FIFO after 5 s: Core's start-up hangs")
	}
}
