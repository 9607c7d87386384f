package console

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"echo":             "echo",
		"":                 "''",
		`{"a":"it's"}`:     `'{"a":"it'\''s"}'`,
		"$(rm -rf /)":      `'$(rm -rf /)'`,
		"a b":              "'a b'",
		"line\nbreak":      "'line\nbreak'",
		"s_abc-1.2:3/4@5%": "s_abc-1.2:3/4@5%",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// The notes keep a bounded part of each session: long results are not
// kept, and old calls and turns are dropped.
func TestConsoleNotesAreBounded(t *testing.T) {
	var n Notes
	now := time.Now()
	for i := range noteCalls + 5 {
		n.CallStarted(fmt.Sprint("tr_", i), now)
	}
	if len(n.calls) != noteCalls || n.calls["tr_0"] != nil {
		t.Fatalf("%d calls kept", len(n.calls))
	}
	big := json.RawMessage(`"` + strings.Repeat("x", resultBytes) + `"`)
	last := fmt.Sprint("tr_", noteCalls+4)
	n.CallSettled(last, big, nil, wire.OutcomeResult, now)
	if c := n.calls[last]; !c.truncated || c.result != nil || c.outcome != wire.OutcomeResult {
		t.Fatalf("a long result: %+v", c)
	}
	for i := range noteTurns + 1 {
		n.TurnStarted(fmt.Sprint("t_", i), "hi", false, now)
	}
	if len(n.turns) != noteTurns {
		t.Fatalf("%d turns kept", len(n.turns))
	}
}
