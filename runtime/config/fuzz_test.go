package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// FuzzParse: whatever the settings file holds, Parse returns a config that
// keeps its own rules or an error whose every line names the file (and a
// line in it, when it names one, that exists), and never panics. A config
// it accepts, written back as TOML, reads back the same.
func FuzzParse(f *testing.F) {
	f.Add([]byte(example))
	for _, seed := range []string{
		"default_provider = \"codex\"\n\n[providers.codex]\nexecutabl = \"/x\"\n",
		"[providers.codex]\nargs = \"--fast\"\n",
		"[providers.openai.env]\nA = 1\n",
		"default_provider = \n",
		"[providers.codex]\n\n[providers.gpt]\ndefault_model = \"x\"\n",
		"[providers.openai]\ndefault_model = \"m\"\nbase_url = \"127.0.0.1:11434\"\n",
		"[providers.codex]\nenv = { \"A=B\" = \"x\" }\n",
		"providers.claude.env.X = \"1\"\nproviders.\"ollama\".base_url = \"https://h\"\n",
		"[providers.\"gpt\"]\n",
		"[[providers]]\n",
		"[providers.\"a\\nb\"]\n[providers.codex]\n\"x\\ny\" = 1\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "config.toml"
		c, err := Parse(name, data)
		if err != nil {
			if !reflect.DeepEqual(c, Config{}) {
				t.Fatalf("an error (%v) and a config %+v", err, c)
			}
			checkErrorLines(t, name, data, err.Error())
			return
		}
		known := Known()
		if c.DefaultProvider != "" && !slices.Contains(known, c.DefaultProvider) && !customACP(c.DefaultProvider, c.Providers[c.DefaultProvider]) {
			t.Fatalf("accepted default_provider %q", c.DefaultProvider)
		}
		for n, s := range c.Providers {
			if !slices.Contains(known, n) && !customACP(n, s) {
				t.Fatalf("accepted provider %q", n)
			}
			for k := range s.Env {
				if k == "" || strings.ContainsAny(k, "=\x00") {
					t.Fatalf("accepted env name %q", k)
				}
			}
		}
		out, err := toml.Marshal(c)
		if err != nil {
			t.Fatalf("an accepted config does not encode: %v", err)
		}
		again, err := Parse(name, out)
		if err != nil {
			t.Fatalf("an accepted config, written back, is refused: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(normalConfig(c), normalConfig(again)) {
			t.Fatalf("written back and read again:\n%+v\nwas\n%+v", again, c)
		}
	})
}

// checkErrorLines holds each line of an error to "file:line: ..." or
// "file:line:column: ..." or "file: ...", with a line the file has.
func checkErrorLines(t *testing.T, name string, data []byte, msg string) {
	t.Helper()
	lines := strings.Count(string(data), "\n") + 1
	for _, l := range strings.Split(msg, "\n") {
		rest, ok := strings.CutPrefix(l, name+":")
		if !ok || strings.TrimSpace(rest) == "" {
			t.Fatalf("error line %q does not name the file and say something (whole error: %q)", l, msg)
		}
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if digits == 0 {
			continue
		}
		n := 0
		for _, d := range rest[:digits] {
			n = n*10 + int(d-'0')
			if n > lines {
				break
			}
		}
		if n < 1 || n > lines {
			t.Fatalf("error line %q names line %s of a %d-line file", l, rest[:digits], lines)
		}
	}
}

// normalConfig treats empty and missing maps and lists alike: TOML writes
// neither.
func normalConfig(c Config) Config {
	if len(c.Providers) == 0 {
		c.Providers = nil
	}
	for n, s := range c.Providers {
		if len(s.Env) == 0 {
			s.Env = nil
		}
		if len(s.Args) == 0 {
			s.Args = nil
		}
		if len(s.AllowKinds) == 0 {
			s.AllowKinds = nil
		}
		c.Providers[n] = s
	}
	return c
}
