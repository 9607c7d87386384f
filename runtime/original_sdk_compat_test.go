package runtime

import (
	"encoding/json"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Issue 23: what an app written for the original SDK (v0.1.23) sends Core.

// The original forwards sendText("") to its agent: Core starts the turn,
// and the provider gets it (with an empty user message) like any other.
func TestSendTextEmptyIsATurn(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	turnID, held := h.send(p, info.SessionID, "")
	if turnID == "" {
		t.Fatal("send_text with an empty text started no turn")
	}
	held.finish <- nil
	awaitEvent(t, p, "done", turnID, nil)
}

// Ollama without a model is MODEL_REQUIRED even when its server is down:
// the original reports the missing model first. With a model and no
// server, the reason names the server.
func TestCreateSessionOllamaNoServerNoModel(t *testing.T) {
	ms := modelserver.NewChat(t)
	root := ms.Root()
	ms.Close() // nothing listens there now
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", provider.NewOllama(provider.Settings{BaseURL: root}))
	})
	p := h.page()
	_, err := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "ollama", Skills: json.RawMessage(harnessSkills)})
	wantCode(t, err, wire.CodeModelRequired)
	_, err = p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "ollama", Model: "qwen3:8b", Skills: json.RawMessage(harnessSkills)})
	wantCode(t, err, wire.CodeOllamaUnavailable)
}

// An Ollama that refuses the key is the original's OLLAMA_AUTH_FAILED.
func TestCreateSessionOllamaRefusesTheKey(t *testing.T) {
	ms := modelserver.NewChat(t)
	ms.RequireKey("right")
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", provider.NewOllama(provider.Settings{BaseURL: ms.Root(), APIKey: "wrong"}))
	})
	p := h.page()
	_, err := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "ollama", Model: "qwen3:8b", Skills: json.RawMessage(harnessSkills)})
	wantCode(t, err, wire.CodeOllamaAuthFailed)
}
