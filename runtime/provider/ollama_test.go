package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func TestOllamaListsItsModels(t *testing.T) {
	srv := modelserver.NewChat(t)
	srv.SetModels("qwen3:8b", "llama3.2:latest")
	info := NewOllama(Settings{BaseURL: srv.Root(), DefaultModel: "qwen3:8b"}).Check(context.Background())
	if !info.Available || info.Name != "ollama" || info.Path != srv.Root() || info.DefaultModel != "qwen3:8b" {
		t.Errorf("Check = %+v", info)
	}
	if strings.Join(info.Models, ",") != "llama3.2:latest,qwen3:8b" {
		t.Errorf("models = %v, want the server's, sorted", info.Models)
	}
	// base_url may name the /v1 endpoint too.
	if info := NewOllama(Settings{BaseURL: srv.URL}).Check(context.Background()); !info.Available || info.Path != srv.Root() {
		t.Errorf("Check with /v1 = %+v", info)
	}
}

func TestOllamaUnavailableSaysWhy(t *testing.T) {
	info := NewOllama(Settings{BaseURL: "http://" + closedPort(t)}).Check(context.Background())
	if info.Available || !strings.Contains(info.Reason, "no Ollama server at") || !strings.Contains(info.Reason, "ollama serve") {
		t.Errorf("Check = %+v, want unavailable with how to start it", info)
	}
	srv := modelserver.NewChat(t)
	srv.RequireKey("k")
	if info := NewOllama(Settings{BaseURL: srv.Root()}).Check(context.Background()); info.Available || !strings.Contains(info.Reason, "OLLAMA_API_KEY") {
		t.Errorf("Check without the key = %+v", info)
	}
	t.Setenv("OLLAMA_API_KEY", "k")
	if info := NewOllama(Settings{BaseURL: srv.Root()}).Check(context.Background()); !info.Available {
		t.Errorf("Check with OLLAMA_API_KEY = %+v", info)
	}
	if info := NewOllama(Settings{BaseURL: "ftp://x"}).Check(context.Background()); info.Available || !strings.Contains(info.Reason, "ollama settings") {
		t.Errorf("Check with a bad base_url = %+v", info)
	}
}

func TestOllamaRunsTheLoop(t *testing.T) {
	srv := modelserver.NewChat(t,
		modelserver.ChatCall("update_counter", `{"delta":2}`),
		modelserver.ChatSay("The counter is now 2."),
	)
	p := newOllama(Settings{BaseURL: srv.Root()})
	broker := &fakeBroker{}
	rec, err := runTurn(t, p.OpenAI, testTurn(broker, "add two", ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := broker.Calls(); len(got) != 1 || got[0].Args != `{"delta":2}` {
		t.Errorf("broker calls = %+v", got)
	}
	if rec.chat() != "The counter is now 2." {
		t.Errorf("chat = %q", rec.chat())
	}
	if res := srv.Requests()[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, `"count":2`) {
		t.Errorf("tool result in the next request = %+v", res)
	}
}

func TestOllamaModelErrorsSayWhatThereIs(t *testing.T) {
	srv := modelserver.NewChat(t)
	srv.SetModels("qwen3:8b")
	p := NewOllama(Settings{BaseURL: srv.Root()})
	turn := testTurn(&fakeBroker{}, "hi", "")
	turn.Model = "llama-missing"
	err := p.RunTurn(context.Background(), turn, func(Event) {})
	wantCode(t, err, wire.CodeModelNotFound, "llama-missing", "the Ollama server has: qwen3:8b")

	turn.Model = ""
	err = p.RunTurn(context.Background(), turn, func(Event) {})
	wantCode(t, err, wire.CodeModelRequired, "[providers.ollama]")
	if nm, ok := p.(interface{ NeedsModel() bool }); !ok || !nm.NeedsModel() {
		t.Errorf("ollama does not tell Core it needs a model")
	}
}

func TestUnavailableProvidersSayWhatToDo(t *testing.T) {
	for _, p := range []Provider{Cursor, Antigravity} {
		info := p.Check(context.Background())
		if info.Available || info.Reason == "" {
			t.Errorf("%s: Check = %+v, want unavailable with a reason", p.Name(), info)
		}
		err := p.RunTurn(context.Background(), &Turn{}, func(Event) {})
		wantCode(t, err, wire.CodeProviderUnavailable, info.Reason[:20])
	}
	if r := Cursor.Check(context.Background()).Reason; !strings.Contains(r, "pedelec mcp") {
		t.Errorf("cursor's reason does not say how to use it: %s", r)
	}
	if r := Cursor.Check(context.Background()).Reason; !strings.Contains(r, "acp = true") {
		t.Errorf("cursor's reason does not say how to run it over ACP: %s", r)
	}
}
