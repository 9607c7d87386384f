package assets

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzAssetPath checks every path the text rules accept against a session
// directory that holds a symlink and a hard link out: what is accepted is
// a clean, printable path, and no read or write through it touches
// anything outside assets/.
func FuzzAssetPath(f *testing.F) {
	for _, seed := range []string{
		"/a.txt", "/results/report.json", "/out/secret", "/hl", "/out", "/../out/secret", "/%2e%2e/x",
		"/a\nb", "/evil\u202etxt.exe", "/\u200f", "/x\u0085", "/.pedelec-upload-1", "//x", "/a/", "/ü/日本.txt",
		"/a\\b", "/" + strings.Repeat("a", 256), "/\xff", "/a/./b", "/dir/inner/deeper/x",
	} {
		f.Add(seed)
	}
	// One session directory for all inputs (a fresh one each is 20 times
	// slower); uploads only add files inside assets/.
	dir := f.TempDir()
	outside := filepath.Join(dir, "outside")
	a := SessionDir(filepath.Join(dir, "session"))
	assets := filepath.Join(a.sessionDir, "work", "assets")
	os.MkdirAll(assets, 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600)
	os.Symlink(outside, filepath.Join(assets, "out"))
	f.Fuzz(func(t *testing.T, p string) {
		segs, err := assetSegments(p)
		if err != nil {
			return
		}
		if !strings.HasPrefix(p, "/") || path.Clean(p) != p || p == "/" || !utf8.ValidString(p) || strings.ContainsRune(p, '\\') {
			t.Fatalf("accepted %q", p)
		}
		if at, r, _ := unsafeRune(p); at >= 0 {
			t.Fatalf("accepted %q holding %U", p, r)
		}
		for _, s := range segs {
			if s == ".." || strings.EqualFold(strings.ReplaceAll(strings.ToLower(s), "%2e", "."), "..") {
				t.Fatalf("accepted %q with segment %q", p, s)
			}
		}
		// An upload may have replaced the hard link: plant it again.
		os.Remove(filepath.Join(assets, "hl"))
		os.Link(filepath.Join(outside, "secret"), filepath.Join(assets, "hl"))

		if f, err := a.open(p); err == nil {
			data, _ := io.ReadAll(f)
			f.Close()
			if string(data) == "secret" {
				t.Fatalf("read the secret through %q", p)
			}
		}
		if _, err := a.write(p, 1, strings.NewReader("x")); err == nil {
			if data, err := os.ReadFile(filepath.Join(assets, filepath.FromSlash(p))); err != nil || string(data) != "x" {
				t.Fatalf("write %q landed elsewhere: %q %v", p, data, err)
			}
		}
		entries, _ := os.ReadDir(outside)
		if data, _ := os.ReadFile(filepath.Join(outside, "secret")); len(entries) != 1 || string(data) != "secret" {
			t.Fatalf("%q changed outside/: %v %q", p, entries, data)
		}
	})
}

// FuzzAssetTicket presents made-up tickets (the session and token of the
// URL, the request's origin): only the token Core issued, for its
// session, kind and origin, is ever redeemed, and refusals spend nothing
// they should not. "ISSUED" in a token stands for the real one.
func FuzzAssetTicket(f *testing.F) {
	for _, seed := range []struct {
		upload                 bool
		session, token, origin string
	}{
		{false, "s1", "ISSUED", "http://a"}, {true, "s1", "ISSUED", "http://a"}, {true, "s2", "ISSUED", "http://a"},
		{false, "s1", "ISSUED", "http://b"}, {false, "s1", "", ""}, {true, "", "ISSUED ", "http://a"},
		{false, "s1", "ISSUEDx", "http://a"}, {false, "../s1", "%2e%2e", "null"},
	} {
		f.Add(seed.upload, seed.session, seed.token, seed.origin)
	}
	f.Fuzz(func(t *testing.T, upload bool, session, token, origin string) {
		var b ticketBook
		read := tokenOf(b.issue(&ticket{sessionID: "s1", origin: "http://a", path: "/x"}, time.Minute))
		up, err := b.issueUpload("s1", "http://a", "/u", 1, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		issued := read
		if upload {
			issued = tokenOf(up)
		}
		token = strings.ReplaceAll(token, "ISSUED", issued)
		got, err := b.redeem(upload, session, token, origin)
		if err == nil && (got == nil || token != issued || session != "s1" || origin != "http://a" || got.upload != upload) {
			t.Fatalf("redeemed %+v for upload=%v session=%q token=%q origin=%q", got, upload, session, token, origin)
		}
		b.spend(token)
		if _, err := b.redeem(upload, "s1", token, "http://a"); err == nil {
			t.Fatalf("token %q redeemed twice", token)
		}
		if upload && token == issued && err != nil {
			// Presented and refused (or spent): the slot must be free now.
			if _, err := b.issueUpload("s1", "http://a", "/v", 1, time.Minute); err != nil {
				t.Fatalf("slot kept after a refused upload ticket: %v", err)
			}
		}
	})
}
