package provider

import "fmt"

// String shows an MCPServer without its credential, so a log line or an
// error that prints one never carries the session's secret.
func (m MCPServer) String() string {
	return fmt.Sprintf("MCPServer{Name:%s URL:%s Headers:%d (hidden) Command:%s Args:%v Env:%d entries (hidden)}",
		m.Name, m.URL, len(m.Headers), m.Command, m.Args, len(m.Env))
}
