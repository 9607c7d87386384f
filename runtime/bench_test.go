package runtime

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/internal/agentclient"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

const benchSkills = `{"guidance":"g","tools":[{"name":"update_counter","description":"Add delta to the counter.",
 "argsSchema":{"type":"object","properties":{"delta":{"type":"integer","minimum":-100,"maximum":100}},"required":["delta"]}}]}`

// benchSession opens a page that answers update_counter, creates a session
// on the hold provider and starts a turn, so calls are accepted.
func benchSession(b *testing.B) (*Session, *agentclient.Client) {
	core, srv := newTestCore(b, holdProvider{})
	p := wspage.Dial(b, wsURL(srv), "")
	n := 0
	p.Handle("update_counter", func(json.RawMessage) any { n++; return map[string]int{"value": n} })
	info := p.CreateSession(wire.CreateSessionParams{Provider: "hold", Skills: json.RawMessage(benchSkills)})
	p.SendText(info.SessionID, "go")
	s, werr := core.session(info.SessionID)
	if werr != nil {
		b.Fatal(werr)
	}
	return s, &agentclient.Client{BaseURL: srv.URL, Secret: s.secret, HTTP: srv.Client()}
}

// One tool call the way an agent makes it: HTTP to the agent endpoint,
// validation, the tool_call frame to the page, the page's result back.
// `go test ./runtime -bench ToolCall -benchmem`
func BenchmarkToolCallRoundTrip(b *testing.B) {
	s, client := benchSession(b)
	args := json.RawMessage(`{"delta":2}`)
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		if res := client.ToolCall(context.Background(), s.id, "update_counter", args); !res.OK {
			b.Fatal(res.Error)
		}
	}
}

// reportCPU adds the process's CPU time per op (Core, client and page
// together), which a loaded machine disturbs much less than ns/op.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64(cpu()-start)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
	}
}

// The same call from an in-process provider (openai): no HTTP hop.
func BenchmarkToolCallInProcess(b *testing.B) {
	s, _ := benchSession(b)
	args := json.RawMessage(`{"delta":2}`)
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		if _, err := s.callTool(context.Background(), "update_counter", args); err != nil {
			b.Fatal(err)
		}
	}
}
