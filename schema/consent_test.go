package schema

import "testing"

// TestAsksConsent pins the consent rule (issue 22): needsApproval true, or
// destructiveHint/consequentialHint true, asks first, even beside
// readOnlyHint (destructive wins); readOnlyHint alone never asks.
func TestAsksConsent(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name string
		tool Tool
		want bool
	}{
		{"nothing said", Tool{}, false},
		{"empty annotations", Tool{Annotations: &Annotations{}}, false},
		{"needsApproval", Tool{NeedsApproval: &yes}, true},
		{"needsApproval false", Tool{NeedsApproval: &no}, false},
		{"destructive", Tool{Annotations: &Annotations{DestructiveHint: &yes}}, true},
		{"destructive false", Tool{Annotations: &Annotations{DestructiveHint: &no}}, false},
		{"consequential", Tool{Annotations: &Annotations{ConsequentialHint: &yes}}, true},
		{"needsApproval false does not cancel destructive", Tool{NeedsApproval: &no, Annotations: &Annotations{DestructiveHint: &yes}}, true},
		{"destructive wins over readOnly", Tool{Annotations: &Annotations{ReadOnlyHint: &yes, DestructiveHint: &yes}}, true},
		{"consequential wins over readOnly", Tool{Annotations: &Annotations{ReadOnlyHint: &yes, ConsequentialHint: &yes}}, true},
		{"needsApproval wins over readOnly", Tool{NeedsApproval: &yes, Annotations: &Annotations{ReadOnlyHint: &yes}}, true},
		{"other hints never ask", Tool{Annotations: &Annotations{IdempotentHint: &yes, OpenWorldHint: &yes, UntrustedContentHint: &yes, Title: "x"}}, false},
	}
	for _, c := range cases {
		if got := c.tool.AsksConsent(); got != c.want {
			t.Errorf("%s: AsksConsent() = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestAnnotationsParsed: the checked definition keeps what was said.
func TestAnnotationsParsed(t *testing.T) {
	s, problems := ValidateSkills([]byte(`{"guidance":"","tools":[{"name":"pay","description":"Pays.","argsSchema":{"type":"object","properties":{},"required":[]},
		"annotations":{"title":"Pay","consequentialHint":true,"readOnlyHint":false},"needsApproval":false}]}`))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	tool := s.Tools[0]
	a := tool.Annotations
	if a == nil || a.Title != "Pay" || !isTrue(a.ConsequentialHint) || a.ReadOnlyHint == nil || *a.ReadOnlyHint || a.DestructiveHint != nil {
		t.Fatalf("annotations = %+v", a)
	}
	if tool.NeedsApproval == nil || *tool.NeedsApproval || !tool.AsksConsent() {
		t.Fatalf("needsApproval = %v, asks = %v", tool.NeedsApproval, tool.AsksConsent())
	}
}
