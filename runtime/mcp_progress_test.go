package runtime

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/mcpbridge"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// `pedelec mcp`'s bridge hears the handler's ctx.progress while the call
// runs (Core streams it, the latest at most 4/s), then the result; the
// in-process path (/mcp) passes it on the same way.
func TestMCPCallsCarryHandlerProgress(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", heldProvider{turns: make(chan *heldTurn, 1)}, provider.NewMCP())
	})
	if err := h.core.writeToken(); err != nil {
		t.Fatal(err)
	}
	p := h.page()
	info := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(harnessSkills)})
	bridge := mcpbridge.NewBridge(h.srv.URL, h.core.opts.StateDir, log.New(io.Discard))

	for _, via := range []string{"bridge", "in-process"} {
		var mu sync.Mutex
		var heard []wire.Progress
		got := func(pr wire.Progress) {
			mu.Lock()
			heard = append(heard, pr)
			mu.Unlock()
		}
		type answer struct {
			result json.RawMessage
			err    error
		}
		done := make(chan answer, 1)
		go func() {
			var a answer
			if via == "bridge" {
				out := bridge.Call(context.Background(), info.SessionID, "none", json.RawMessage(`{}`), got)
				a.result = out.Result
				if out.Error != nil {
					a.err = out.Error
				}
			} else {
				out := h.core.mcp.Answer(context.Background(), info.SessionID, "none", json.RawMessage(`{}`), got)
				a.result = out.Result
				if out.Error != nil {
					a.err = out.Error
				}
			}
			done <- a
		}()
		call := toolCall(t, p, "none", map[string]int{"bridge": 1, "in-process": 2}[via])
		for i := 1; i <= 50; i++ { // a chatty handler
			p.MustCall(wire.MethodToolProgress, wire.ToolProgressParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Progress: float64(i), Total: 50, Message: "row"})
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			mu.Lock()
			n := len(heard)
			latest := wire.Progress{}
			if n > 0 {
				latest = heard[n-1]
			}
			mu.Unlock()
			if latest.Progress == 50 {
				if n > 10 {
					t.Fatalf("%s: %d reports passed on for 50 sent at once; want them coalesced", via, n)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the latest report never arrived (heard %d)", via, n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"ok":1}`)})
		if a := <-done; a.err != nil || string(a.result) != `{"ok":1}` {
			t.Fatalf("%s: %s %v", via, a.result, a.err)
		}
	}
}
