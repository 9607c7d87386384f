package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 26 over MCP: a client that sends a progressToken hears the page
// handler's ctx.progress as notifications/progress, through `pedelec mcp`
// (the real binary) and Core, coalesced, the latest last, with growing
// progress; then the result.
func TestMCPClientHearsHandlerProgress(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := mcpSession(t, p) // get_current_page is not answered until the test does

	var mu sync.Mutex
	var heard []*mcp.ProgressNotificationParams
	client := mcp.NewClient(&mcp.Implementation{Name: "pedelec-e2e-progress", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			heard = append(heard, req.Params)
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(testenv.Binary(t), "mcp", "--core-url", srv.URL, "--state-dir", srv.StateDir)}, nil)
	if err != nil {
		t.Fatalf("connect to pedelec mcp: %v", err)
	}
	defer cs.Close()
	testenv.Await(t, 10*time.Second, "the page's tools in the client", func() bool {
		res, err := cs.ListTools(ctx, nil)
		return err == nil && len(res.Tools) > 0
	})

	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "get_current_page", Arguments: json.RawMessage(`{}`)}
		params.SetProgressToken("tok-1")
		res, err := cs.CallTool(ctx, params)
		done <- answer{res, err}
	}()
	ev := p.AwaitEvent(10*time.Second, "the call", func(e wire.Event) bool { return e.Event == wire.EventToolCall })
	var call wire.ToolCallData
	json.Unmarshal(ev.Data.(json.RawMessage), &call)
	for i := 1; i <= 40; i++ { // a chatty handler
		p.MustCall(wire.MethodToolProgress, wire.ToolProgressParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Progress: float64(i), Total: 40, Message: "reading"})
	}
	testenv.Await(t, 10*time.Second, "the latest report at the client", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(heard) > 0 && heard[len(heard)-1].Message == "reading" && heard[len(heard)-1].Progress >= 40
	})
	p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"title":"t"}`)})
	a := <-done
	if a.err != nil || a.res.IsError {
		t.Fatalf("tools/call: %v %+v", a.err, a.res)
	}
	mu.Lock()
	defer mu.Unlock()
	var handler int
	for i, n := range heard {
		if n.ProgressToken != "tok-1" {
			t.Fatalf("notification %d has token %v", i, n.ProgressToken)
		}
		if i > 0 && n.Progress <= heard[i-1].Progress {
			t.Fatalf("progress went from %v to %v", heard[i-1].Progress, n.Progress)
		}
		if strings.HasPrefix(n.Message, "reading") {
			handler++
		}
	}
	if handler == 0 || handler > 10 {
		t.Fatalf("%d of the handler's 40 reports reached the client; want them coalesced to a few", handler)
	}
}
