package provider

import (
	"context"
	"sort"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Registry is the set of providers Core offers, and which one a session gets
// when the page names none.
type Registry struct {
	byName     map[string]Provider
	order      []string
	configured string // the config file's default_provider, may be empty
}

// DefaultOrder is the preference when no default is configured: the first
// available of these is used.
var DefaultOrder = []string{"codex", "claude", "gemini", "opencode", "copilot", "openai", "ollama", "script"}

// NewRegistry holds ps; defaultName is the configured default (may be empty).
func NewRegistry(defaultName string, ps ...Provider) *Registry {
	r := &Registry{byName: map[string]Provider{}, configured: defaultName}
	for _, p := range ps {
		r.byName[p.Name()] = p
		r.order = append(r.order, p.Name())
	}
	return r
}

// Get returns the provider by name.
func (r *Registry) Get(name string) (Provider, bool) {
	p, ok := r.byName[name]
	return p, ok
}

// Names lists the providers, sorted.
func (r *Registry) Names() []string {
	names := append([]string(nil), r.order...)
	sort.Strings(names)
	return names
}

// List checks every provider.
func (r *Registry) List(ctx context.Context) []wire.ProviderInfo {
	infos := make([]wire.ProviderInfo, 0, len(r.order))
	for _, name := range r.order {
		infos = append(infos, r.byName[name].Check(ctx))
	}
	return infos
}

// Default is the configured default provider, else the first available one
// in DefaultOrder.
func (r *Registry) Default(ctx context.Context) string {
	if r.configured != "" {
		return r.configured
	}
	for _, name := range DefaultOrder {
		if p, ok := r.byName[name]; ok && p.Check(ctx).Available {
			return name
		}
	}
	return "script"
}
