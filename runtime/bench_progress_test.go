package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// What a handler's ctx.progress costs Core (issue 26): "store" is Core's
// part (find the call, keep the latest report, note it for the console);
// "frame" is one tool_progress request from a page over the WebSocket,
// answered, while an agent waits on the call with the reports streamed to
// it (coalesced to <= 4/s). `go test ./runtime -run ^$ -bench ToolProgress -benchmem`
func BenchmarkToolProgress(b *testing.B) {
	core, srv := newTestCore(b, holdProvider{})
	p := wspage.Dial(b, wsURL(srv), "")
	skills := `{"guidance":"g","tools":[{"name":"upload","description":"Upload a file; waits for the user.",
	 "argsSchema":{"type":"object","properties":{},"required":[]},"timeoutMs":600000}]}`
	info := p.CreateSession(wire.CreateSessionParams{Provider: "hold", Skills: json.RawMessage(skills)})
	p.SendText(info.SessionID, "go")
	s, werr := core.session(info.SessionID)
	if werr != nil {
		b.Fatal(werr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Call(ctx, session.CallRequest{Tool: "upload", Args: json.RawMessage(`{}`), Progress: func(wire.Progress) {}}) // an agent waiting with progress
	}()
	defer func() { cancel(); <-done }()
	ev := p.AwaitEvent(10*time.Second, wire.EventToolCall, nil)
	var call wire.ToolCallData
	if err := json.Unmarshal(ev.Data.(json.RawMessage), &call); err != nil {
		b.Fatal(err)
	}
	id := call.ToolRequestID
	for deadline := time.Now().Add(10 * time.Second); !s.Pending(id); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the call did not start")
		}
	}

	b.Run("store", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := s.ReportProgress(id, wire.Progress{Progress: float64(i), Total: float64(b.N), Message: "uploading"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("frame", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, err := p.Call(wire.MethodToolProgress, wire.ToolProgressParams{SessionID: info.SessionID, ToolRequestID: id, Progress: float64(i), Total: float64(b.N), Message: "uploading"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
