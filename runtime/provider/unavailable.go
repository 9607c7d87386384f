package provider

import (
	"context"
	"fmt"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// unavailable is a provider Pedelec names but does not offer: list_providers
// shows it with the reason (and what a user can do instead), and a session
// asking for it gets PROVIDER_UNAVAILABLE with the same reason.
type unavailable struct{ name, description, reason string }

func (u unavailable) Name() string { return u.name }

func (u unavailable) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{Name: u.name, Description: u.description, Reason: u.reason}
}

func (u unavailable) RunTurn(context.Context, *Turn, func(Event)) error {
	return fmt.Errorf("%s: %w", u.name, wire.Errorf(wire.CodeProviderUnavailable, "%s", u.reason))
}

// Off is the provider name turned off by the user's settings: listed as
// unavailable with reason, refused to every session.
func Off(name, reason string) Provider {
	return unavailable{name: name, description: "turned off", reason: reason}
}

var (
	// Cursor and Antigravity: their agent CLIs do not install from npm, so
	// there is no adapter Pedelec could test. Both are MCP clients.
	Cursor Provider = unavailable{name: "cursor", description: "Cursor (cursor-agent)",
		reason: "no adapter: Cursor's agent CLI does not install from npm, so Pedelec has none it could test. " +
			"Cursor is an MCP client: add `pedelec mcp` as an MCP server in Cursor's settings to give it the page's tools; " +
			"its agent also speaks ACP: a settings section of your own, [providers.cursor-agent] with acp = true, " +
			"executable = \"cursor-agent\" and args = [\"acp\"], runs it as an ACP provider (untested here; docs/providers.md)"}
	Antigravity Provider = unavailable{name: "antigravity", description: "Google Antigravity",
		reason: "no adapter: Antigravity's agent does not install from npm, so Pedelec has none it could test. " +
			"Antigravity is an MCP client: add `pedelec mcp` as an MCP server in its settings to give it the page's tools (docs/providers.md)"}
)

// Listed, never offered: no settings, never the default.
func init() {
	listed := func(p Provider) func(Settings) Provider { return func(Settings) Provider { return p } }
	Register(Spec{Name: Cursor.Name(), Title: "Cursor", Rank: 100, NoSettings: true, New: listed(Cursor)})
	Register(Spec{Name: Antigravity.Name(), Title: "Antigravity", Rank: 110, NoSettings: true, New: listed(Antigravity)})
}
