package e2e

// .goreleaser.yaml's changelog filters match this repository's commit
// subjects (issue 23: "^docs:" and "^test:" matched none of
// "docs/performance: ...", "tests: ...", "e2e: ...").

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// changelogExcludes reads the changelog's exclude patterns (single-quoted
// YAML strings, one a line) as GoReleaser does: Go regular expressions.
func changelogExcludes(t *testing.T) []*regexp.Regexp {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*regexp.Regexp
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "exclude:":
			in = true
		case in && strings.HasPrefix(trimmed, "- "):
			v := strings.TrimSpace(strings.TrimPrefix(trimmed, "- "))
			if len(v) < 2 || v[0] != '\'' || v[len(v)-1] != '\'' {
				t.Fatalf("write each exclude pattern in single quotes: %s", line)
			}
			out = append(out, regexp.MustCompile(strings.ReplaceAll(v[1:len(v)-1], "''", "'")))
		case in:
			in = false
		}
	}
	if len(out) == 0 {
		t.Fatal("no changelog exclude patterns")
	}
	return out
}

func TestReleaseChangelogFilters(t *testing.T) {
	filters := changelogExcludes(t)
	excluded := func(subject string) bool {
		for _, f := range filters {
			if f.MatchString(subject) {
				return true
			}
		}
		return false
	}
	// Subjects as this repository writes them: documents and tests only
	// are left out, every change to what ships stays in.
	for subject, out := range map[string]bool{
		"docs/performance: the cold start measured again":               true,
		"docs/performance.md: numbers after the batching change":        true,
		"docs: what a blocked approval window does":                     true,
		"decisions: why a blocked approval window is reported":          true,
		"README: counter.html says on the page what went wrong":         true,
		"tests: two that the last full run caught racing under load":    true,
		"e2e: the demo at 390 px":                                       true,
		"soak: an hour of sessions":                                     true,
		"bench: MCP calls against a Chromium page":                      true,
		"scripts/test.sh: print each tier as it starts and ends":        true,
		"serve: a busy port is ADDR_IN_USE":                             false,
		"sdk: sendText(\"\") is forwarded":                              false,
		"schema: the violation names the path":                          false,
		"approvals: at most 32 sites wait for the user at once":         false,
		"demo: fits a phone":                                            false,
		"One /proc socket scan and one secret-file writer":              false,
		"MCP: TOOL_ARGS_INVALID points at inputSchema":                  false,
		"docsite: a product that starts with docs but is not a doc one": false,
	} {
		if excluded(subject) != out {
			t.Errorf("%q: left out of the changelog %v, want %v", subject, !out, out)
		}
	}
	// Each filter matches subjects this repository really has.
	log, err := exec.Command("git", "-C", testenv.RepoRoot(), "log", "--format=%s", "-n", "2000").Output()
	if err != nil {
		t.Skipf("no git history to check against: %v", err)
	}
	subjects := strings.Split(strings.TrimSpace(string(log)), "\n")
	for _, f := range filters {
		n := 0
		for _, s := range subjects {
			if f.MatchString(s) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("the changelog filter %q matches none of the last %d commit subjects", f, len(subjects))
		}
	}
}
