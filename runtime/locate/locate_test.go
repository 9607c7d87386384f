package locate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteThenRead(t *testing.T) {
	dir := t.TempDir()
	if _, _, ok, err := Read(dir); ok || err != nil {
		t.Fatalf("before Write: ok %v, err %v", ok, err)
	}
	if _, _, ok, err := Read(filepath.Join(dir, "missing")); ok || err != nil {
		t.Fatalf("no state dir: ok %v, err %v", ok, err)
	}
	for _, u := range []string{"http://127.0.0.1:7181", "http://[::1]:7077"} {
		if err := Write(dir, u); err != nil {
			t.Fatal(err)
		}
		got, from, ok, err := Read(dir)
		if !ok || err != nil || got != u || from != filepath.Join(dir, File) {
			t.Errorf("Read after Write(%q) = %q, %q, %v, %v", u, got, from, ok, err)
		}
	}
}

// A link planted at either name is replaced, never written through.
func TestWriteNeverFollowsALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{File + ".tmp", File} {
		os.Remove(filepath.Join(dir, name))
		if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		Write(dir, "http://127.0.0.1:1")
		if data, _ := os.ReadFile(victim); string(data) != "keep" {
			t.Fatalf("a link at %s let Write change %s: %q", name, victim, data)
		}
	}
}

func TestReadRefusesWhatIsNoAddress(t *testing.T) {
	for _, content := range []string{"javascript:alert(1)", "127.0.0.1:7077", strings.Repeat("x", 2000), "http://"} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, File), []byte(content), 0o644)
		if u, _, ok, err := Read(dir); ok || err == nil {
			t.Errorf("%.20q: Read = %q, %v, %v; want an error", content, u, ok, err)
		}
	}
}
