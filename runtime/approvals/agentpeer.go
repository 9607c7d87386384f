package approvals

import (
	"bytes"
	"net"
	"net/http"
)

// AgentEnvVars are the variables Core gives every provider process (and
// so, unless a program clears them, every process an agent starts). A
// process that carries one, or descends from one that does, may not
// decide: an agent would approve its own calls.
var AgentEnvVars = []string{"PEDELEC_AGENT_SECRET", "PEDELEC_THREAD_ID"}

// AgentRefusal is the Guard's RefuseAgent on this platform: it finds the
// process at the other end of r's connection and walks its ancestry.
func AgentRefusal(r *http.Request) string {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	remote, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
	lt, ok := local.(*net.TCPAddr)
	if err != nil || !ok {
		return "Core could not tell which process sent the request"
	}
	return agentRefusal(remote, lt)
}

// agentEntry reports whether one environ entry (KEY=VALUE) is an agent's.
func agentEntry(entry []byte) bool {
	for _, k := range AgentEnvVars {
		if bytes.HasPrefix(entry, []byte(k+"=")) {
			return true
		}
	}
	return false
}
