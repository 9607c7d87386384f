package runtime

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
)

// newCoreOn starts a Core on stateDir (and stops it) and returns its log.
func newCoreOn(t *testing.T, stateDir string) (logs string, err error) {
	t.Helper()
	var buf bytes.Buffer
	c, err := NewCore(Options{
		StateDir: stateDir, Providers: provider.NewRegistry("", heldProvider{turns: make(chan *heldTurn, 1)}),
		Logger: log.New(&buf), Executable: "/bin/false",
	})
	if err == nil {
		c.persist.Close()
	}
	return buf.String(), err
}

func wantRefused(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("Core started")
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not say %q", err, p)
		}
	}
}

// Issue 20: a state directory another user owns (one pre-created in /tmp)
// is refused; so is one others can write to.
func TestStateDirOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	dir := filepath.Join(t.TempDir(), "state")
	os.Mkdir(dir, 0o700)
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := newCoreOn(t, dir)
	wantRefused(t, err, dir, "belongs to uid 65534", "--state-dir")
}

func TestStateDirWritableByOthersIsRefused(t *testing.T) {
	for _, sub := range []string{"", "sessions"} {
		dir := filepath.Join(t.TempDir(), "state")
		os.MkdirAll(filepath.Join(dir, "sessions"), 0o700)
		os.Chmod(filepath.Join(dir, sub), 0o777)
		_, err := newCoreOn(t, dir)
		wantRefused(t, err, filepath.Join(dir, sub), "can be written by other users", "chmod go-w")
	}
}

// Issue 20: `sessions` as a link out of the state directory is refused,
// and the link's target is left as it was (the first start-up emptied it).
func TestSessionsLinkIsNotFollowed(t *testing.T) {
	victim := t.TempDir()
	os.MkdirAll(filepath.Join(victim, "s_stale"), 0o700)
	os.WriteFile(filepath.Join(victim, "s_stale", "keep"), []byte("mine"), 0o600)
	dir := t.TempDir()
	if err := os.Symlink(victim, filepath.Join(dir, "sessions")); err != nil {
		t.Fatal(err)
	}
	_, err := newCoreOn(t, dir)
	wantRefused(t, err, filepath.Join(dir, "sessions"), "symbolic link")
	if _, err := os.Stat(filepath.Join(victim, "s_stale", "keep")); err != nil {
		t.Fatalf("the link's target lost a file: %v", err)
	}
}

// A session directory that is a link is removed as a link: what it points
// at is not touched, and a restored session does not build in it.
func TestSessionDirLinkIsRemovedNotFollowed(t *testing.T) {
	victim := t.TempDir()
	os.WriteFile(filepath.Join(victim, "keep"), []byte("mine"), 0o600)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sessions"), 0o700)
	link := filepath.Join(dir, "sessions", "s_link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if _, err := newCoreOn(t, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Fatalf("the link is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Fatalf("the link's target lost a file: %v", err)
	}
}

// Issue 20: a damaged state directory (the 14-byte journal segment, a
// database that is not one) starts Core, with one log line that says what
// was kept and what was set aside, where.
func TestDamagedStateStartsAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, persist.FileName)
	os.WriteFile(db, bytes.Repeat([]byte("not bbolt"), 4096), 0o600)
	os.WriteFile(db+".journal.7", []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01abcd"), 0o600)
	logs, err := newCoreOn(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "set aside") {
			lines++
			for _, want := range []string{"keptSessions=0", "invalid database", persist.FileName + ".unreadable-", persist.FileName + ".journal.7.unreadable-"} {
				if !strings.Contains(l, want) {
					t.Errorf("the log line lacks %q: %s", want, l)
				}
			}
		}
	}
	if lines != 1 {
		t.Fatalf("%d log lines about what was set aside, want 1:\n%s", lines, logs)
	}
	// Started afresh: the next start finds nothing wrong.
	if logs, err := newCoreOn(t, dir); err != nil || strings.Contains(logs, "set aside") {
		t.Fatalf("second start: %v\n%s", err, logs)
	}
}

// A journal of a newer format is refused with the file's name and what to do.
func TestNewerStateIsRefused(t *testing.T) {
	dir := t.TempDir()
	seg := filepath.Join(dir, persist.FileName+".journal.3")
	os.WriteFile(seg, []byte("\x00PDLJ\x09"), 0o600)
	_, err := newCoreOn(t, dir)
	wantRefused(t, err, seg, "newer pedelec", "use the newer pedelec, or move the file aside")
}
