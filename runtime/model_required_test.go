package runtime

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A provider that needs a model (ollama) refuses createSession without one
// and without a default_model: MODEL_REQUIRED, with the models it has.
func TestCreateSessionWithoutAModelForOllama(t *testing.T) {
	ms := modelserver.NewChat(t)
	ms.SetModels("qwen3:8b")
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", provider.NewOllama(provider.Settings{BaseURL: ms.Root()}))
	})
	p := h.page()
	_, err := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "ollama", Skills: json.RawMessage(harnessSkills)})
	wantCode(t, err, wire.CodeModelRequired)
	if !strings.Contains(err.Message, "default_model under [providers.ollama]") || !strings.Contains(string(mustJSON(err.Details)), "qwen3:8b") {
		t.Errorf("error = %s %v, want how to name a model and the models there are", err.Message, err.Details)
	}
	if _, err := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "ollama", Model: "qwen3:8b", Skills: json.RawMessage(harnessSkills)}); err != nil {
		t.Errorf("createSession with a model: %v", err)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
