package provider

import (
	"context"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// unbuilt is a provider whose adapter has not landed yet; it reports itself
// unavailable and refuses turns. Replaced adapter by adapter (issue 5).
type unbuilt struct{ name string }

func (u unbuilt) Name() string { return u.name }
func (u unbuilt) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{Name: u.name, Reason: "adapter not built yet"}
}
func (u unbuilt) RunTurn(context.Context, *Turn, func(Event)) error {
	return wire.Errorf(wire.CodeProviderUnavailable, "%s: adapter not built yet", u.name)
}
