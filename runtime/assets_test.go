package runtime

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func newAssetFS(t *testing.T) (assetFS, string) {
	t.Helper()
	dir := t.TempDir()
	assets := filepath.Join(dir, "work", "assets")
	if err := os.MkdirAll(assets, 0o755); err != nil {
		t.Fatal(err)
	}
	return assetFS{sessionDir: dir}, assets
}

func codeOf(err error) string {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	if err == nil {
		return ""
	}
	return "plain: " + err.Error()
}

func TestAssetPathRules(t *testing.T) {
	good := []string{"/a", "/results/report.json", "/.hidden", "/dir/.env", "/%2e%2ex", "/a b/ü.txt", "/..a"}
	for _, p := range good {
		if _, err := assetSegments(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
	bad := []string{"", "/", "a", "etc/passwd", "//etc/passwd", "/a//b", "/a/", "/.", "/..", "/../x", "/a/../b", "/a/./b",
		"/%2e%2e/etc/passwd", "/%2E%2e", "/%2e", "/a\\b", "C:\\Windows", "/.pedelec-upload-1", "/x/.pedelec-y/z", "/a\x00b", "/\xff",
		"/" + strings.Repeat("a", 256)}
	for _, p := range bad {
		if _, err := assetSegments(p); codeOf(err) != wire.CodeAssetPathInvalid {
			t.Errorf("%q: got %s, want ASSET_PATH_INVALID", p, codeOf(err))
		}
	}
}

func TestAssetWriteReadList(t *testing.T) {
	a, dir := newAssetFS(t)
	if _, err := a.write("/results/deep/report.json", 7, strings.NewReader(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "results", "deep", "report.json")); string(got) != `{"a":1}` {
		t.Fatalf("file holds %q", got)
	}
	// Replacing a regular file works; a directory in the way does not.
	if _, err := a.write("/results/deep/report.json", 2, strings.NewReader(`[]`)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.write("/results", 2, strings.NewReader(`[]`)); codeOf(err) != wire.CodeAssetNotFile {
		t.Fatalf("upload over a directory: %s", codeOf(err))
	}
	// Short and long bodies leave nothing behind.
	for _, body := range []string{"abc", "abcdefgh"} {
		if _, err := a.write("/m.txt", 5, strings.NewReader(body)); codeOf(err) != wire.CodeAssetUploadSizeMismatch {
			t.Fatalf("body %q: %s", body, codeOf(err))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "m.txt")); !os.IsNotExist(err) {
		t.Fatal("a mismatched upload left a file")
	}
	os.WriteFile(filepath.Join(dir, ".pedelec-upload-x"), []byte("partial"), 0o644)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".pedelec-tmp"), 0o755)
	os.WriteFile(filepath.Join(dir, ".pedelec-tmp", "inner"), []byte("x"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "passwd"))
	os.Symlink("/etc", filepath.Join(dir, "etc"))
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, ".env"), old, old)

	list, err := a.list()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, x := range list {
		paths = append(paths, x.Path)
	}
	if strings.Join(paths, " ") != "/results/deep/report.json /.env" {
		t.Fatalf("listed %v", paths)
	}
	if list[0].Name != "report.json" || list[0].SizeBytes != 2 {
		t.Fatalf("entry %+v", list[0])
	}

	for p, want := range map[string]string{
		"/passwd":        wire.CodeAssetPathInvalid,
		"/etc/passwd":    wire.CodeAssetPathInvalid,
		"/results":       wire.CodeAssetNotFile,
		"/nope":          wire.CodeAssetNotFound,
		"/nope/x":        wire.CodeAssetNotFound,
		"/.env/x":        wire.CodeAssetNotFile,
		"/../etc/passwd": wire.CodeAssetPathInvalid,
	} {
		f, err := a.open(p)
		if err == nil {
			f.Close()
		}
		if codeOf(err) != want {
			t.Errorf("open %s: %s, want %s", p, codeOf(err), want)
		}
	}
	// Uploads never write through a symlinked directory or replace a symlink.
	if _, err := a.write("/etc/evil", 1, strings.NewReader("x")); codeOf(err) != wire.CodeAssetPathInvalid {
		t.Fatalf("upload through a symlinked dir: %s", codeOf(err))
	}
	if _, err := a.write("/passwd", 1, strings.NewReader("x")); codeOf(err) != wire.CodeAssetPathInvalid {
		t.Fatalf("upload over a symlink: %s", codeOf(err))
	}
	f, err := a.open("/results/deep/report.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	buf.ReadFrom(f)
	if buf.String() != "[]" || f.mime != "application/json" {
		t.Fatalf("read %q as %s", buf.String(), f.mime)
	}
}

// The agent may replace assets/ itself with a symlink; Core then refuses
// rather than follow it.
func TestAssetsDirSymlinkRefused(t *testing.T) {
	a, dir := newAssetFS(t)
	os.RemoveAll(dir)
	os.Symlink("/etc", dir)
	if _, err := a.open("/passwd"); codeOf(err) != wire.CodeAssetPathInvalid {
		t.Fatalf("open through a symlinked assets/: %s", codeOf(err))
	}
	if _, err := a.list(); codeOf(err) != wire.CodeAssetPathInvalid {
		t.Fatalf("list through a symlinked assets/: %s", codeOf(err))
	}
}

func TestAssetListOrder(t *testing.T) {
	a, dir := newAssetFS(t)
	at := time.Now().Truncate(time.Second)
	for name, age := range map[string]time.Duration{"b": 0, "a": 0, "sub/c": time.Minute, "z": -time.Minute} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(name), 0o644)
		os.Chtimes(p, at.Add(-age), at.Add(-age))
	}
	list, err := a.list()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range list {
		got = append(got, x.Path)
	}
	if strings.Join(got, " ") != "/z /a /b /sub/c" {
		t.Fatalf("order %v", got)
	}
}
