package assets

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

func newAssetDir(t *testing.T) (Dir, string) {
	t.Helper()
	dir := t.TempDir()
	assets := filepath.Join(dir, "work", "assets")
	if err := os.MkdirAll(assets, 0o755); err != nil {
		t.Fatal(err)
	}
	return SessionDir(dir), assets
}

func codeOf(err error) wire.Code {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	if err == nil {
		return ""
	}
	return wire.Code("plain: " + err.Error())
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
	a, dir := newAssetDir(t)
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

	for p, want := range map[string]wire.Code{
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
	a, dir := newAssetDir(t)
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
	a, dir := newAssetDir(t)
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

// Issue 20: a hard link planted in assets/ was served to the page (it read
// core-token and /etc/shadow that way). A regular file with more than one
// link is refused like a symlink: not read, not listed.
func TestAssetHardLinkRefused(t *testing.T) {
	a, dir := newAssetDir(t)
	secret := filepath.Join(a.sessionDir, "core-token")
	if err := os.WriteFile(secret, []byte("token"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(secret, filepath.Join(dir, "token.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("x"), 0o644)
	_, err := a.open("/token.txt")
	if codeOf(err) != wire.CodeAssetPathInvalid || !strings.Contains(err.Error(), "hard link") {
		t.Fatalf("read of a hard link: %v", err)
	}
	list, err := a.list()
	if err != nil || len(list) != 1 || list[0].Path != "/plain.txt" {
		t.Fatalf("listed %+v, %v", list, err)
	}
	// An upload to its name replaces the link, never writes through it.
	if _, err := a.write("/token.txt", 3, strings.NewReader("new")); err != nil {
		t.Fatalf("upload over a hard link: %v", err)
	}
	if data, _ := os.ReadFile(secret); string(data) != "token" {
		t.Fatalf("the upload wrote through the link: %q", data)
	}
	if f, err := a.open("/token.txt"); err != nil {
		t.Fatalf("the replaced file: %v", err)
	} else {
		f.Close()
	}
}

// Issue 20: newlines, control and bidi-override characters were accepted
// in asset names. Each is refused, naming the character and its position.
func TestAssetPathRefusesControlAndBidi(t *testing.T) {
	for p, want := range map[string]string{
		"/a\nb.txt":              `U+000A at byte 2`,
		"/a\rb":                  `U+000D at byte 2`,
		"/\tx":                   `U+0009 at byte 1`,
		"/x\x1b[31m":             `U+001B at byte 2`,
		"/x\x7f":                 `U+007F at byte 2`,
		"/x\u0085":               `U+0085 at byte 2`,
		"/x\u009f":               `U+009F at byte 2`,
		"/dir/evil\u202etxt.exe": `U+202E at byte 9`,
		"/\u202a":                `U+202A at byte 1`,
		"/\u2066x":               `U+2066 at byte 1`,
		"/\u2069":                `U+2069 at byte 1`,
		"/\u200e":                `U+200E at byte 1`,
		"/\u200f":                `U+200F at byte 1`,
		"/\u061c":                `U+061C at byte 1`,
		"/a\x00b":                `U+0000 at byte 2`,
	} {
		_, err := assetSegments(p)
		if codeOf(err) != wire.CodeAssetPathInvalid || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want ASSET_PATH_INVALID naming %s", p, err, want)
			continue
		}
		d := wire.AsError(err).Details.(map[string]any)
		if d["path"] != p || d["offset"] == nil || d["character"] == nil {
			t.Errorf("%q: details %v", p, d)
		}
	}
	for _, p := range []string{"/ü.txt", "/日本語/ファイル.txt", "/a b", "/\u200d", "/emoji-😀.png"} {
		if _, err := assetSegments(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
}
