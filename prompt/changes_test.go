package prompt

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/schema"
)

// A later turn after the page's tools changed names what was added (with
// how to use it, and its notes) and what was removed; an unchanged list
// adds nothing (issue 24).
func TestToolsChangedGolden(t *testing.T) {
	yes := true
	added := []schema.Tool{
		{Name: "read_reviews", Description: "Read the reviews on the page.", ArgsSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: &schema.Annotations{ReadOnlyHint: &yes, UntrustedContentHint: &yes}},
		{Name: "checkout", Description: "Pay for the cart.", ArgsSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: &schema.Annotations{ConsequentialHint: &yes}},
	}
	got := ToolsChanged("s_thread", added, []string{"clear_todos"}) + "Buy it."
	golden(t, "tools-changed.txt", got)
	if ToolsChanged("s_thread", nil, nil) != "" {
		t.Error("an unchanged list added text to the prompt")
	}
}

// A tool whose results are untrusted says so in the first prompt's index.
func TestFirstTurnMarksUntrustedResults(t *testing.T) {
	yes := true
	tools := append(seedTools(), schema.Tool{Name: "read_reviews", Description: "Read reviews.", ArgsSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &schema.Annotations{UntrustedContentHint: &yes}})
	got := FirstTurn(Params{ThreadID: "s_thread", Tools: tools, Message: "hi"})
	if n := strings.Count(got, "untrusted results"); n != 1 {
		t.Errorf("%d tools marked untrusted, want 1", n)
	}
}
