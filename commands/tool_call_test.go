package commands

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Unparseable arguments are reported with the parser's message and the
// line and column, before anything is sent to Core.
func TestToolCallBadJSON(t *testing.T) {
	cases := map[string]struct{ line, column int }{
		`{"delta": 2`:             {1, 12},
		`{"delta": two}`:          {1, 12},
		"{\n  \"a\": 1,\n  oops}": {3, 3},
		`{"a":1} trailing`:        {1, 9},
	}
	for args, want := range cases {
		var out, errOut bytes.Buffer
		code := Main([]string{"pedelec", "tool-call", "--thread-id", "s_x", "update_counter", args}, strings.NewReader(""), &out, &errOut)
		if code != wire.ExitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, wire.ExitUsage)
		}
		var res struct {
			OK    bool
			Error struct {
				Code    wire.Code
				Message string
				Details struct{ Line, Column int }
			}
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("%q: stdout is not one JSON object: %q", args, out.String())
		}
		if res.OK || res.Error.Code != wire.CodeToolArgsInvalid || res.Error.Details.Line != want.line || res.Error.Details.Column != want.column {
			t.Errorf("%q: got %s, want line %d column %d", args, out.String(), want.line, want.column)
		}
	}
}

// The seeds' form puts --thread-id before the subcommand; both places work,
// and so does the environment variable.
func TestThreadIDPlacement(t *testing.T) {
	for _, args := range [][]string{
		{"pedelec-cli", "--thread-id", "s_x", "tool-call", "t", "{}"},
		{"pedelec", "tool-call", "--thread-id", "s_x", "t", "{}"},
	} {
		var out bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &bytes.Buffer{})
		// No Core in the environment: the thread id was found, so the
		// complaint is the missing environment, not the thread id.
		if code != wire.ExitUsage || !strings.Contains(out.String(), string(wire.CodeNotInSession)) || !strings.Contains(out.String(), "PEDELEC_CORE_URL") {
			t.Errorf("%v: exit %d, %s", args, code, out.String())
		}
	}
}

// Any argument text gets either a pass or an TOOL_ARGS_INVALID with a position
// inside the text, never a panic.
func FuzzCheckJSONArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":`, "{\n\"a\": tru}", `[1,2]`, `"x" y`, ``, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		werr := wire.AsError(checkJSONArgs(raw))
		if werr == nil {
			if !json.Valid([]byte(raw)) {
				t.Fatalf("accepted invalid JSON %q", raw)
			}
			return
		}
		d := werr.Details.(map[string]any)
		line, col := d["line"].(int), d["column"].(int)
		if line < 1 || col < 1 || line > strings.Count(raw, "\n")+1 {
			t.Fatalf("position %d:%d outside %q", line, col, raw)
		}
	})
}
