package provider

import (
	"context"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// NotBuiltReason is what list_providers says about a provider the original
// Pedelec had and this version does not run yet.
const NotBuiltReason = "not built into this version of Pedelec yet"

// notBuilt stands for one of the original Pedelec's providers (ollama,
// opencode, cursor, antigravity) that this version does not have yet, so
// listProviders() names every provider an app written for the original may
// offer, each with a clear reason, and createSession refuses it with
// PROVIDER_UNAVAILABLE instead of PROVIDER_NOT_FOUND.
type notBuilt struct{ name string }

// NewNotBuilt is a registry entry for a provider that is not built in yet.
func NewNotBuilt(name string) Provider { return notBuilt{name: name} }

func (p notBuilt) Name() string { return p.name }

func (p notBuilt) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{Name: p.name, Available: false, Reason: NotBuiltReason}
}

func (p notBuilt) RunTurn(context.Context, *Turn, func(Event)) error {
	return wire.Errorf(wire.CodeProviderUnavailable, "provider %q is %s", p.name, NotBuiltReason)
}

// OriginalOnly are the original Pedelec's providers this version lacks.
var OriginalOnly = []string{"ollama", "opencode", "cursor", "antigravity"}

// WithOriginalProviders adds a NotBuilt entry for each of the original's
// providers that ps does not already include.
func WithOriginalProviders(ps ...Provider) []Provider {
	have := map[string]bool{}
	for _, p := range ps {
		have[p.Name()] = true
	}
	for _, name := range OriginalOnly {
		if !have[name] {
			ps = append(ps, NewNotBuilt(name))
		}
	}
	return ps
}
