package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Spec is one provider as Core offers it. Each provider's own file
// registers its Spec from an init function; the settings file's sections,
// list_providers' order, the default and the SDK's list of providers
// (sdk/src/providers.gen.ts, `go generate ./runtime/wire`) all come from
// the registered specs, so no other file names a provider.
type Spec struct {
	// Name is the code a page passes as createSession({provider}) and the
	// settings file's [providers.<Name>].
	Name string
	// Title is the provider's name for a person: the SDK's displayName,
	// shown in a provider picker.
	Title string
	// Rank places the provider: list_providers lists by Rank, and with no
	// default_provider configured a session gets the available provider
	// of lowest Rank that takes settings. The built-in ones are 10 apart,
	// so a new one can go between two.
	Rank int
	// NoSettings says the provider takes no [providers.<Name>] section (a
	// settings file with one is refused) and is never the default: mcp,
	// whose agent Core does not start, and the providers listed but not
	// offered. New then gets empty Settings.
	NoSettings bool
	// New builds the provider from the user's settings.
	New func(Settings) Provider
}

// specs are the registered providers, in the order of registration. Written
// only by Register, from init functions: fixed before main starts. Every
// pedelec process (tool-call too) runs those, so they only append, into
// room made once, and readers sort.
var specs = make([]Spec, 0, 16)

// Register adds a provider. It is called from the init function of the
// provider's own file; a spec without a name, title, rank or constructor,
// or with the name or rank of another, is a programming error.
func Register(s Spec) {
	if s.Name == "" || s.Title == "" || s.Rank <= 0 || s.New == nil {
		panic(fmt.Sprintf("provider.Register(%q, rank %d): name, title, rank and New are required", s.Name, s.Rank))
	}
	for _, o := range specs {
		if o.Name == s.Name || o.Rank == s.Rank {
			panic(fmt.Sprintf("provider.Register: %s (rank %d) clashes with %s (rank %d)", s.Name, s.Rank, o.Name, o.Rank))
		}
	}
	specs = append(specs, s)
}

// Specs are the registered providers, by Rank.
func Specs() []Spec {
	sorted := slices.Clone(specs)
	slices.SortFunc(sorted, func(a, b Spec) int { return a.Rank - b.Rank })
	return sorted
}

// DefaultOrder names the providers that take settings, by Rank: the
// preference when no default is configured (the first available of these
// is used), and the names a settings file may configure.
func DefaultOrder() []string {
	var names []string
	for _, s := range Specs() {
		if !s.NoSettings {
			names = append(names, s.Name)
		}
	}
	return names
}

// Registry is the set of providers Core offers, and which one a session gets
// when the page names none.
type Registry struct {
	byName     map[string]Provider
	order      []string
	configured string // the config file's default_provider, may be empty
}

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
// in DefaultOrder, else the last of that order: the built-in script
// provider, unavailable only when the user turned it off, which the session
// asking for it is then told.
func (r *Registry) Default(ctx context.Context) string {
	if r.configured != "" {
		return r.configured
	}
	order := DefaultOrder()
	for _, name := range order {
		if p, ok := r.byName[name]; ok && p.Check(ctx).Available {
			return name
		}
	}
	return order[len(order)-1]
}
