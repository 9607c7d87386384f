package mcpbridge

import (
	"fmt"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// pageTool is one page's tool: the session that declared it and its name
// there.
type pageTool struct{ sessionID, tool string }

// namer gives each page's tool the name an MCP client sees, and keeps it:
// a name once listed stays that tool's for as long as its page has it, so
// a name the model saw never starts meaning another page's tool, nor stops
// working because another page opened. A tool takes its own name when no
// other open page's tool holds it, else its page's prefix
// ("page<N>__<name>", N the session's creation number in this Core).
// The zero value is ready; the Mirror guards it with its mu.
type namer struct {
	names map[pageTool]string
}

// assign names every tool of snap, keeping the names of those listed
// before, and forgets the tools that are gone. Tools come in snapshot
// order (sessions by creation), so when two new pages declare one name at
// once, the older page's tool takes it.
func (n *namer) assign(snap []wire.MCPSession, keep func(wire.MCPTool) bool) map[pageTool]string {
	now := map[pageTool]string{}
	taken := map[string]bool{}
	for _, s := range snap {
		for _, t := range s.Tools {
			k := pageTool{s.SessionID, t.Name}
			if name, ok := n.names[k]; ok && keep(t) {
				now[k] = name
				taken[name] = true
			}
		}
	}
	for _, s := range snap {
		for _, t := range s.Tools {
			k := pageTool{s.SessionID, t.Name}
			if _, ok := now[k]; ok || !keep(t) {
				continue
			}
			name := t.Name
			if taken[name] {
				name = fmt.Sprintf("page%d__%s", s.Ordinal, t.Name)
			}
			// A page may itself name a tool "page2__x": never give one
			// name to two tools.
			for i := 2; taken[name]; i++ {
				name = fmt.Sprintf("page%d__%s_%d", s.Ordinal, t.Name, i)
			}
			now[k] = name
			taken[name] = true
		}
	}
	n.names = now
	return now
}
