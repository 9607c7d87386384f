package runtime

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/cardtools"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/agentclient"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

const benchSkills = `{"guidance":"g","tools":[{"name":"update_counter","description":"Add delta to the counter.",
 "argsSchema":{"type":"object","properties":{"delta":{"type":"integer","minimum":-100,"maximum":100}},"required":["delta"]}},
 {"name":"replace_text","description":"Replace the document's text; answers with the text it replaced.",
 "argsSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`

// benchSession opens a page that answers update_counter, creates a session
// on the hold provider and starts a turn, so calls are accepted.
func benchSession(b *testing.B) (*session.Session, *agentclient.Client) {
	s, client, _ := benchSessionAt(b, "")
	return s, client
}

// benchSessionAt is benchSession with a query on the page's /ws URL.
func benchSessionAt(b *testing.B, query string) (*session.Session, *agentclient.Client, *wspage.Page) {
	core, srv := newTestCore(b, holdProvider{})
	p := wspage.Dial(b, wsURL(srv)+query, "")
	n := 0
	p.Handle("update_counter", func(json.RawMessage) any { n++; return map[string]int{"value": n} })
	p.Handle("replace_text", func(args json.RawMessage) any { return args })
	info := p.CreateSession(wire.CreateSessionParams{Provider: "hold", Skills: json.RawMessage(benchSkills)})
	p.SendText(info.SessionID, "go")
	s, werr := core.session(info.SessionID)
	if werr != nil {
		b.Fatal(werr)
	}
	return s, &agentclient.Client{BaseURL: srv.URL, Secret: s.Secret(), HTTP: srv.Client()}, p
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
		if res := client.ToolCall(context.Background(), s.ID(), "update_counter", args); !res.OK {
			b.Fatal(res.Error)
		}
	}
}

// The same over a page that asked for batched messages (runtime/page/frames.go);
// msgs/op counts the messages Core sent the page per call (5 frames).
func BenchmarkToolCallRoundTripBatched(b *testing.B) {
	s, client, p := benchSessionAt(b, "?"+wire.BatchQueryParam+"=1")
	args := json.RawMessage(`{"delta":2}`)
	m0, _ := p.Messages()
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		if res := client.ToolCall(context.Background(), s.ID(), "update_counter", args); !res.OK {
			b.Fatal(res.Error)
		}
	}
	m1, _ := p.Messages()
	b.ReportMetric(float64(m1-m0)/float64(b.N), "msgs/op")
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
		if _, err := s.CallTool(context.Background(), "update_counter", args); err != nil {
			b.Fatal(err)
		}
	}
}

// The same with a 64 KiB argument whose result is as large (an editor's
// document going in and coming back), written as an agent might: indented,
// with characters encoding/json escapes. Here the bytes dominate: what
// each hop does with a call's JSON (scan it, copy it, re-encode it) shows
// in ns/op and B/op (docs/performance.md, "A call's JSON").
func BenchmarkToolCallInProcessLarge(b *testing.B) {
	s, _ := benchSession(b)
	args := largeArgs(64 << 10)
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		if _, err := s.CallTool(context.Background(), "replace_text", args); err != nil {
			b.Fatal(err)
		}
	}
}

// largeArgs is replace_text's arguments with a text of about size bytes.
func largeArgs(size int) json.RawMessage {
	line := `<p>Fish & chips, \"quoted\", caf\u00e9 — naïve</p>\n` // JSON string text
	text := strings.Repeat(line, size/len(line)+1)
	return json.RawMessage("{\n  \"text\": \"" + text + "\"\n}\n")
}

// Live heap per declared tool: 20 sessions of 500 create_card-like tools,
// measured after a collection, so the Go collector's headroom and the
// create_session frames' garbage are left out (the bench's RSS figure has
// both). `go test ./runtime -run '^$' -bench HeapPerTool -benchtime 1x`
func BenchmarkHeapPerTool(b *testing.B) {
	const sessions, toolsEach = 20, 500
	grown := heapGrowth(b, sessions, toolsEach)
	b.ReportMetric(grown/float64(b.N*sessions*toolsEach), "heap-B/tool")
}

// heapGrowth creates b.N × sessions sessions of toolsEach card tools on one
// connection and returns how much the live heap grew, after a collection.
func heapGrowth(b *testing.B, sessions, toolsEach int) float64 {
	core, srv := newTestCore(b, holdProvider{})
	core.opts.Limits.ToolsPerSession = max(toolsEach, core.opts.Limits.ToolsPerSession)
	core.opts.Limits.Sessions = b.N*sessions + 1
	core.opts.Limits.SessionsPerConnection = b.N*sessions + 1
	skills := cardtools.Manifest(toolsEach)
	p := wspage.Dial(b, wsURL(srv), "")
	heap := func() float64 {
		var m goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&m)
		return float64(m.HeapAlloc)
	}
	p.CreateSession(wire.CreateSessionParams{Provider: "hold", Skills: skills}) // warm up: the shared schema, maps
	core.persist.Flush()
	before := heap()
	for i := 0; i < b.N; i++ {
		for range sessions {
			p.CreateSession(wire.CreateSessionParams{Provider: "hold", Skills: skills})
		}
	}
	core.persist.Flush()
	return heap() - before
}

// Live heap per idle session of 3 tools (the bench's 1,000 idle sessions
// figure, without the collector's headroom).
// `go test ./runtime -run '^$' -bench HeapPerIdleSession -benchtime 1x`
func BenchmarkHeapPerIdleSession(b *testing.B) {
	const sessions = 1000
	grown := heapGrowth(b, sessions, 3)
	b.ReportMetric(grown/float64(b.N*sessions), "heap-B/session")
}
