package e2e

// docs/providers.md's "Configuration" stays current (issue 23: it still
// described the first four providers): its example config parses, its
// `pedelec providers` example lists every provider the binary lists, in
// order, and its keys table names every key a provider's section takes.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/config"
	"github.com/kaoruisaac/pedelec/runtime/provider"
)

func TestDocsProvidersConfigurationIsCurrent(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "providers.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "\n## Configuration\n")
	end := strings.Index(doc[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("docs/providers.md has no Configuration section")
	}
	section := doc[start : start+1+end]
	blocks := codeBlocks(section)

	t.Run("the example config parses", func(t *testing.T) {
		var found bool
		for _, b := range blocks {
			if strings.HasPrefix(b.lang, "toml") {
				found = true
				if _, err := config.Parse("docs/providers.md", []byte(b.text)); err != nil {
					t.Errorf("the documented config does not parse: %v\n%s", err, b.text)
				}
			}
		}
		if !found {
			t.Error("no toml example")
		}
	})

	t.Run("the pedelec providers example lists every provider", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "none.toml")
		out, err := exec.Command(testenv.Binary(t), "providers", "--config", cfg, "--format", "json").Output()
		if err != nil {
			t.Fatal(err)
		}
		var listed struct{ Providers []struct{ Name string } }
		if err := json.Unmarshal(out, &listed); err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, p := range listed.Providers {
			want = append(want, p.Name)
		}
		for _, b := range blocks {
			if !strings.HasPrefix(b.text, "$ pedelec providers\n") {
				continue
			}
			for _, line := range strings.Split(b.text, "\n")[2:] {
				if f := strings.Fields(line); len(f) > 0 && f[0] != "Default" {
					got = append(got, f[0])
				}
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("docs/providers.md shows providers %v; pedelec providers lists %v", got, want)
		}
	})

	t.Run("the keys table names every key", func(t *testing.T) {
		settings := reflect.TypeOf(provider.Settings{})
		for i := range settings.NumField() {
			key, _, _ := strings.Cut(settings.Field(i).Tag.Get("toml"), ",")
			if key != "" && !strings.Contains(section, "\n| `"+key+"` |") {
				t.Errorf("the keys table has no row for %s", key)
			}
		}
	})
}

type codeBlock struct{ lang, text string }

// codeBlocks are the fenced blocks of a Markdown text.
func codeBlocks(md string) []codeBlock {
	var out []codeBlock
	var cur *codeBlock
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			if cur == nil {
				cur = &codeBlock{lang: strings.TrimPrefix(line, "```")}
			} else {
				out = append(out, *cur)
				cur = nil
			}
			continue
		}
		if cur != nil {
			cur.text += line + "\n"
		}
	}
	return out
}
