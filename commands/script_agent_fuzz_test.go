package commands

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzScriptLine runs messages of file commands against a work directory
// that already holds a link out (assets/out, as a real agent could plant)
// and checks that nothing outside it changed and that no link the script
// agent made points out. call and spec lines start processes, so they are
// only parsed here (by being skipped the way runScriptLine dispatches them).
func FuzzScriptLine(f *testing.F) {
	for _, seed := range []string{
		"write assets/a.txt hello",
		"write /tmp/x x",
		"write ../../x x",
		"write assets/out/new x",
		"symlink ../../outside assets/lnk\nwrite assets/lnk/f x",
		"symlink /outside assets/lnk\nwrite assets/lnk/f x",
		"symlink out assets/o2\nwrite assets/o2/f x\nrm assets/o2/secret",
		"mkdir assets/d\nsymlink d assets/e\nwrite assets/e/f x\nls assets/e",
		"symlink . assets/self\nsymlink self/../.. assets/up\nwrite assets/up/x x",
		"rm assets/out/secret\nrm .\nrm ./\nrm assets/..",
		"write assets\\..\\..\\x x",
		"ls\nls assets\nls assets/out",
		"say hi\nhistory\n& write a x\n& rm a",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, message string) {
		lines := strings.Split(message, "\n")
		if len(lines) > 8 || len(message) > 4096 {
			return
		}
		s := newScriptSandbox(t)
		s.plant(s.outside, "assets/out")
		for _, line := range lines {
			line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "&"))
			if verb, _, _ := strings.Cut(line, " "); verb == "call" || verb == "spec" {
				continue
			}
			runScriptLine(s.work, line)
		}
		s.untouched()
		filepath.WalkDir(filepath.Join(s.dir, "work"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Type()&fs.ModeSymlink == 0 || strings.HasSuffix(p, filepath.Join("assets", "out")) {
				return nil
			}
			to, _ := os.Readlink(p)
			if filepath.IsAbs(to) || hasDotDot(to) {
				t.Errorf("%q made a link %s -> %s", message, p, to)
			}
			return nil
		})
	})
}
