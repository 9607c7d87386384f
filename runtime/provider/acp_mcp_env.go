package provider

import (
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// mcpReferencingEnv is m with the session's secret and id, wherever they
// appear in its URL and headers, replaced by references to the variables
// of env that hold them (${PEDELEC_AGENT_SECRET}, ${PEDELEC_THREAD_ID}),
// for an agent that expands them itself (acpSpec.mcpByEnv). A value env
// does not hold stays as it is.
func mcpReferencingEnv(m *MCPServer, env []string) *MCPServer {
	if m == nil {
		return nil
	}
	var refs []string
	for _, name := range []string{wire.EnvSecret, wire.EnvThreadID} {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, name+"="); ok && v != "" {
				refs = append(refs, v, "${"+name+"}")
			}
		}
	}
	if len(refs) == 0 {
		return m
	}
	r := strings.NewReplacer(refs...)
	out := *m
	out.URL = r.Replace(m.URL)
	out.Headers = make(map[string]string, len(m.Headers))
	for k, v := range m.Headers {
		out.Headers[k] = r.Replace(v)
	}
	return &out
}
