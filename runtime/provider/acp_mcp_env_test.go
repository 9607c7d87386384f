package provider

import (
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The session's secret and id leave the MCP server's URL and headers as
// references to the agent's own variables; the server given is unchanged.
func TestMCPReferencingEnv(t *testing.T) {
	m := &MCPServer{Name: "pedelec", URL: "http://127.0.0.1:7077/mcp/session/s_abc", Headers: map[string]string{"Authorization": "Bearer k_secret"}}
	env := []string{"HOME=/h", wire.EnvThreadID + "=s_abc", wire.EnvSecret + "=k_secret"}
	got := mcpReferencingEnv(m, env)
	if got.URL != "http://127.0.0.1:7077/mcp/session/${"+wire.EnvThreadID+"}" || got.Headers["Authorization"] != "Bearer ${"+wire.EnvSecret+"}" {
		t.Fatalf("got %s %v", got.URL, got.Headers)
	}
	if m.URL != "http://127.0.0.1:7077/mcp/session/s_abc" || m.Headers["Authorization"] != "Bearer k_secret" {
		t.Fatalf("the turn's server was changed: %s %v", m.URL, m.Headers)
	}
	if s := mcpReferencingEnv(m, []string{"HOME=/h"}); s.URL != m.URL || !strings.HasSuffix(s.Headers["Authorization"], "k_secret") {
		t.Errorf("without the variables the values must stay: %+v", s)
	}
	if mcpReferencingEnv(nil, env) != nil {
		t.Error("no server stays none")
	}
}
