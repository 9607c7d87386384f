package provider

import (
	"context"
	"errors"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Every provider of the original Pedelec is listed, each that is not built
// in with the same clear reason, and one already present is not doubled.
func TestWithOriginalProviders(t *testing.T) {
	reg := NewRegistry("", WithOriginalProviders(NewScript(Settings{}), NewNotBuilt("ollama"))...)
	seen := map[string]wire.ProviderInfo{}
	for _, info := range reg.List(context.Background()) {
		if _, dup := seen[info.Name]; dup {
			t.Errorf("%s listed twice", info.Name)
		}
		seen[info.Name] = info
	}
	for _, name := range OriginalOnly {
		info, ok := seen[name]
		if !ok || info.Available || info.Reason != NotBuiltReason {
			t.Errorf("%s: %+v, want unavailable with %q", name, info, NotBuiltReason)
		}
	}
	if !seen["script"].Available {
		t.Error("script should stay available")
	}
	err := NewNotBuilt("cursor").RunTurn(context.Background(), &Turn{}, func(Event) {})
	var werr *wire.Error
	if !errors.As(err, &werr) || werr.Code != wire.CodeProviderUnavailable {
		t.Errorf("RunTurn: %v, want PROVIDER_UNAVAILABLE", err)
	}
}
