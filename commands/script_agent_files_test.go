package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptSandbox is a work directory beside an "outside" directory holding
// a secret, so a test can tell whether anything leaked out.
type scriptSandbox struct {
	t       *testing.T
	dir     string // holds work/ and outside/
	work    *os.Root
	outside string
}

func newScriptSandbox(t *testing.T) *scriptSandbox {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"work/assets", "outside"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "outside", "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	work, err := os.OpenRoot(filepath.Join(dir, "work"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { work.Close() })
	return &scriptSandbox{t: t, dir: dir, work: work, outside: filepath.Join(dir, "outside")}
}

// plant makes a symlink in the work directory the way a real agent's shell
// could, without the script agent's rules.
func (s *scriptSandbox) plant(to, at string) {
	s.t.Helper()
	if err := os.Symlink(to, filepath.Join(s.dir, "work", at)); err != nil {
		s.t.Fatal(err)
	}
}

func (s *scriptSandbox) run(line string) string {
	s.t.Helper()
	return runScriptLine(s.work, line)
}

// untouched fails the test if anything outside the work directory changed.
func (s *scriptSandbox) untouched() {
	s.t.Helper()
	entries, _ := os.ReadDir(s.outside)
	if len(entries) != 1 || entries[0].Name() != "secret" {
		s.t.Errorf("outside/ now holds %v", entries)
	}
	if data, err := os.ReadFile(filepath.Join(s.outside, "secret")); err != nil || string(data) != "secret" {
		s.t.Errorf("outside/secret: %q, %v", data, err)
	}
	top, _ := os.ReadDir(s.dir)
	if len(top) != 2 {
		s.t.Errorf("the sandbox now holds %v", top)
	}
}

// Issue 20: any allowed page could make the script agent write, remove or
// link anywhere the user can. Every escape is refused with the reason.
func TestScriptFileVerbsStayInWorkDir(t *testing.T) {
	s := newScriptSandbox(t)
	s.plant(s.outside, "assets/out")                 // absolute link out
	s.plant("../../outside", "assets/up")            // relative link out
	s.plant(filepath.Join(s.outside, "secret"), "f") // a file link out
	abs := filepath.Join(s.outside, "new")
	for line, want := range map[string]string{
		"write " + abs + " x":                     "absolute path",
		"write ../outside/new x":                  "has a .. segment",
		"write ../../x x":                         "has a .. segment",
		"write assets/../../outside/new x":        "has a .. segment",
		"write . x":                               "work directory itself",
		"write":                                   "no path given",
		"mkdir " + abs:                            "absolute path",
		"mkdir ../outside/d":                      "has a .. segment",
		"rm " + s.outside:                         "absolute path",
		"rm ../outside":                           "has a .. segment",
		"rm .":                                    "work directory itself",
		"rm ./":                                   "work directory itself",
		"ls /":                                    "absolute path",
		"ls ..":                                   "has a .. segment",
		"symlink " + s.outside + " assets/lnk":    "the link's target: it is an absolute path",
		"symlink /etc/passwd assets/passwd":       "the link's target: it is an absolute path",
		"symlink ../../outside assets/lnk":        "the link's target: it has a .. segment",
		"symlink .. lnk":                          "the link's target: it has a .. segment",
		"symlink x " + abs:                        "absolute path",
		"symlink x ../lnk":                        "has a .. segment",
		"write assets/out/new x":                  "leads outside",
		"write assets/up/new x":                   "leads outside",
		"write f x":                               "leads outside",
		"mkdir assets/out/d":                      "leads outside",
		"rm assets/out/secret":                    "leads outside",
		"rm assets/up/secret":                     "leads outside",
		"ls assets/out":                           "leads outside",
		"symlink x assets/out/lnk":                "leads outside",
		"write assets/out/../../../outside/new x": "has a .. segment",
		"write assets\\..\\..\\outside\\new x":    "has a .. segment",
		"write \\outside\\new x":                  "absolute path",
		"write assets/a\x00b x":                   "NUL byte",
		"symlink a\x00b assets/lnk":               "NUL byte",
		"symlink out/secret assets/via-planted":   "", // allowed: the link points inside; the planted one is what leads out
	} {
		got := s.run(line)
		if want == "" {
			if !strings.Contains(got, " ok: ") {
				t.Errorf("%q: %s", line, got)
			}
			continue
		}
		verb, _, _ := strings.Cut(line, " ")
		if !strings.HasPrefix(got, verb+" refused: ") || !strings.Contains(got, want) {
			t.Errorf("%q:\n got %s\nwant %s refused: ... %s", line, got, verb, want)
		}
	}
	s.untouched()
	// Writing through the allowed link still cannot reach the secret.
	if got := s.run("write assets/via-planted x"); !strings.Contains(got, "refused") {
		t.Errorf("write through a chain of links out: %s", got)
	}
	s.untouched()
}

// What a test page asks of the script agent inside its work directory
// still works, symlinks that stay inside included.
func TestScriptFileVerbsInsideWorkDir(t *testing.T) {
	s := newScriptSandbox(t)
	for _, step := range []struct{ line, want string }{
		{"write assets/dir/a.txt hello there", "write ok: assets/dir/a.txt"},
		{"mkdir assets/empty", "mkdir ok: assets/empty"},
		{"symlink a.txt assets/dir/b.txt", "symlink ok: a.txt"},
		{"symlink dir assets/in", "symlink ok: dir"},
		{"write assets/in/c.txt via a link inside", "write ok: assets/in/c.txt"},
		{"ls assets/dir", "a.txt b.txt c.txt"},
		{"ls assets/in", "a.txt b.txt c.txt"},
		{"write top.txt in the work directory itself", "write ok: top.txt"},
		{"ls", "assets top.txt"},
		{"rm assets/in", "rm ok: assets/in"},
		{"ls assets", "dir empty"},
		{"rm assets/dir", "rm ok: assets/dir"},
		{"ls assets", "empty"},
		{"rm assets/empty", "rm ok: assets/empty"},
		{"ls assets", "ls: assets is empty"}, // not a blank line in the chat
	} {
		if got := s.run(step.line); got != step.want {
			t.Fatalf("%q: %q, want %q", step.line, got, step.want)
		}
	}
	s.untouched()
}

// The agent's thread file is written through the work directory's root:
// a link planted in its place does not make it append elsewhere.
func TestScriptThreadStaysInWorkDir(t *testing.T) {
	s := newScriptSandbox(t)
	thread := scriptThread("t1")
	s.plant(filepath.Join(s.outside, "secret"), thread.file())
	thread.add(s.work, "hello")
	if got := thread.messages(s.work); got != nil {
		t.Errorf("messages read through a link out: %q", got)
	}
	s.untouched()

	other := scriptThread("t2")
	other.add(s.work, "one")
	other.add(s.work, "two")
	if got := strings.Join(other.messages(s.work), "|"); got != "one|two" {
		t.Errorf("messages: %q", got)
	}
}

// The CLI's docs quote arguments for a shell; the same line typed to the
// script agent means the JSON inside the quotes.
func TestScriptCallTakesShellQuotes(t *testing.T) {
	for in, want := range map[string]string{
		`'{"delta": 2}'`:  `{"delta": 2}`,
		`{"delta": 2}`:    `{"delta": 2}`,
		`'`:               `'`,
		`''`:              ``,
		`'{"a": "it's"}'`: `{"a": "it's"}`,
	} {
		if got := shellUnquote(in); got != want {
			t.Errorf("shellUnquote(%q) = %q, want %q", in, got, want)
		}
	}
}
