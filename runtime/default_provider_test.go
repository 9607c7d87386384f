package runtime

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A session that names no provider gets Core's default; when that default
// cannot run here the page learns it with the original SDK's code, and a
// provider named explicitly keeps PROVIDER_UNAVAILABLE.
func TestCreateSessionDefaultProviderUnavailable(t *testing.T) {
	core, err := NewCore(Options{
		StateDir:   t.TempDir(),
		Providers:  provider.NewRegistry("ollama", provider.WithOriginalProviders(holdProvider{})...),
		Logger:     log.New(io.Discard),
		Executable: "/bin/false",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { core.Shutdown(context.Background()) })
	skills := json.RawMessage(`{"guidance": "", "tools": []}`)

	_, err = core.sessions.Create(context.Background(), nil, wire.CreateSessionParams{Skills: skills})
	if werr := wire.AsError(err); err == nil || werr.Code != wire.CodeDefaultProviderUnavailable || !strings.Contains(werr.Message, provider.NotBuiltReason) {
		t.Fatalf("no provider, default ollama: got %v, want %s naming the reason", err, wire.CodeDefaultProviderUnavailable)
	}
	_, err = core.sessions.Create(context.Background(), nil, wire.CreateSessionParams{Provider: "cursor", Skills: skills})
	if werr := wire.AsError(err); err == nil || werr.Code != wire.CodeProviderUnavailable {
		t.Fatalf("provider cursor: got %v, want %s", err, wire.CodeProviderUnavailable)
	}
}
