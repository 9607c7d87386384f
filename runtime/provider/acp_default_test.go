package provider

import "testing"

// gemini, opencode and copilot run over ACP unless acp = false picks
// their native adapters (issue 25, item 6).
func TestACPIsTheDefaultForGeminiOpencodeCopilot(t *testing.T) {
	no := false
	for name, newP := range map[string]func(Settings) Provider{"gemini": NewGemini, "opencode": NewOpencode, "copilot": NewCopilot} {
		if p := newP(Settings{}); !TakesMCP(p) || p.Name() != name {
			t.Errorf("%s by default: %T, want the ACP form", name, p)
		}
		if p := newP(Settings{ACP: &no}); TakesMCP(p) || p.Name() != name {
			t.Errorf("%s with acp = false: %T, want the native adapter", name, p)
		}
	}
}
