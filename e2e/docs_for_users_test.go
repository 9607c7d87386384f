package e2e

// The user docs (README and docs/, but the decision record and the
// performance log, which keep history) spoke of "issue 22" and cited a
// reference folder outside the repository: words a reader cannot follow.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func TestUserDocsSpeakToUsers(t *testing.T) {
	root := testenv.RepoRoot()
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	internal := regexp.MustCompile(`(?i)\bissues? [0-9]+\b|\.\./shared/|\bshared/reference\b|\bshared/providers\b`)
	checked := 0
	for _, f := range files {
		switch filepath.Base(f) {
		case "decisions.md", "performance.md":
			continue // the record of why and when: history belongs there
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(data), "\n") {
			if m := internal.FindString(line); m != "" {
				t.Errorf("%s:%d says %q, which a reader cannot follow: say what it means instead", filepath.Base(f), i+1, m)
			}
		}
	}
	if checked < 8 {
		t.Fatalf("checked %d user docs; the docs folder moved?", checked)
	}
}
