package provider

import (
	"fmt"
	"strings"
	"testing"
)

func TestMCPServerPrintsNoSecret(t *testing.T) {
	m := &MCPServer{Name: "pedelec", URL: "http://127.0.0.1:1/mcp/session/s_1", Headers: map[string]string{"Authorization": "Bearer k_secret"},
		Command: "pedelec", Args: []string{"mcp"}, Env: []string{"PEDELEC_AGENT_SECRET=k_secret"}}
	for _, s := range []string{fmt.Sprint(m), fmt.Sprintf("%v", *m), fmt.Sprintf("%+v", m), m.String()} {
		if strings.Contains(s, "k_secret") || !strings.Contains(s, "/mcp/session/s_1") {
			t.Errorf("printed as %s", s)
		}
	}
}
