package commands

import (
	"slices"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// `pedelec deny <id> --reason ...` (the form the docs and Core's log line
// show) keeps its reason although the flag follows the id.
func TestTrailingDecideFlags(t *testing.T) {
	rest, reason, _, err := trailingDecideFlags([]string{"ap_1", "--reason", "too much"}, wire.DecisionDeny)
	if err != nil || !slices.Equal(rest, []string{"ap_1"}) || reason != "too much" {
		t.Fatalf("deny: %v %q %v", rest, reason, err)
	}
	if _, reason, _, _ = trailingDecideFlags([]string{"ap_1", "--reason=no"}, wire.DecisionDeny); reason != "no" {
		t.Fatalf("--reason=: %q", reason)
	}
	if _, _, _, err = trailingDecideFlags([]string{"ap_1", "--reason"}, wire.DecisionDeny); err == nil {
		t.Fatal("--reason without a value was accepted")
	}
	rest, _, session, _ := trailingDecideFlags([]string{"ap_1", "--session"}, wire.DecisionApprove)
	if !session || !slices.Equal(rest, []string{"ap_1"}) {
		t.Fatalf("approve --session: %v %v", rest, session)
	}
	// An approve has no --reason: it stays an argument (and is refused as a second one).
	if rest, _, _, _ = trailingDecideFlags([]string{"ap_1", "--reason", "x"}, wire.DecisionApprove); len(rest) != 3 {
		t.Fatalf("approve --reason: %v", rest)
	}
}

// `pedelec approvals` shows a call's arguments on one readable line: cut
// past argsMax, with what the page could use to disguise them escaped.
func TestArgsCell(t *testing.T) {
	for in, want := range map[string]string{
		``:                                  "-",
		`{ "to": "bob",  "amount": 5 }`:     `{"to":"bob","amount":5}`,
		`{"note":"a\u202eb"}`:               `{"note":"a\u202eb"}`,
		`{"note":"` + "a\u202eb\x1b" + `"}`: `{"note":"a\u202eb\u001b"}`,
	} {
		if got := argsCell([]byte(in)); got != want {
			t.Errorf("argsCell(%q) = %q, want %q", in, got, want)
		}
	}
	long := `{"text":"` + string(make([]byte, 0)) + "0123456789012345678901234567890123456789012345678901234567890123456789" + `"}`
	if got := argsCell([]byte(long)); len([]rune(got)) != argsMax+1 || got[len(got)-len("…"):] != "…" {
		t.Errorf("a long one: %q", got)
	}
}
