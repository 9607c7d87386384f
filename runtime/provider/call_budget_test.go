package provider

import (
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Each CLI's agent gets a budget a little under its shell's limit; the
// CLI's own variable for that limit, and Settings.Env, move it.
func TestCallBudgetFromShellLimit(t *testing.T) {
	for _, c := range []struct {
		spec cliSpec
		env  map[string]string
		want string
	}{
		{claudeSpec, nil, "110000"},
		{claudeSpec, map[string]string{"BASH_DEFAULT_TIMEOUT_MS": "600000"}, "590000"},
		{claudeSpec, map[string]string{"BASH_DEFAULT_TIMEOUT_MS": "nonsense"}, "110000"},
		{codexSpec, nil, "8000"},
		{geminiSpec, nil, "290000"},
		{opencodeSpec, nil, "110000"},
		{copilotSpec, nil, "24000"},
	} {
		got := budgetEnv(c.spec.shellLimit, c.spec.limitVar, c.env)[wire.EnvCallBudgetMs]
		if got != c.want {
			t.Errorf("%s %v: budget %s, want %s", c.spec.name, c.env, got, c.want)
		}
	}
	if budgetEnv(0, "", nil) != nil {
		t.Error("a provider without a shell got a budget")
	}
	if got := callBudget(time.Second); got != 800*time.Millisecond {
		t.Errorf("callBudget(1s) = %v", got)
	}
}
