package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// testTools is a Core with one mcp session whose tools are "echo" (returns
// its arguments), "block" (waits for its ctx and reports why it ended on
// ended) and, in bigMirror, 25 more with 4 KB descriptions.
type testTools struct {
	started chan string // a call reached the Caller: its tool
	ended   chan error  // block's ctx ended: its cause
	// slow, when set, is how long "slow" takes, reporting on progress
	// the wire.Progress values in report first.
	slow   time.Duration
	report []wire.Progress
	// reportAfter delays the reports (heartbeats go first).
	reportAfter time.Duration
}

func newTestTools() *testTools {
	return &testTools{started: make(chan string, 64), ended: make(chan error, 8)}
}

func (tt *testTools) call(ctx context.Context, _, tool string, args json.RawMessage, progress func(wire.Progress)) (json.RawMessage, error) {
	select {
	case tt.started <- tool:
	default:
	}
	switch tool {
	case "block":
		<-ctx.Done()
		tt.ended <- context.Cause(ctx)
		return json.RawMessage(`"ended"`), nil
	case "slow":
		time.Sleep(tt.reportAfter)
		for _, r := range tt.report {
			progress(r)
		}
		select {
		case <-time.After(tt.slow):
			return json.RawMessage(`{"done":true}`), nil
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	return args, nil
}

// snapshot is one mcp session with the named tools (timeout 30 s).
func snapshot(tools ...wire.MCPTool) wire.MCPSnapshot {
	return wire.MCPSnapshot{Core: "c", Version: 1, Sessions: []wire.MCPSession{{SessionID: "s_1", Ordinal: 1, Origin: "http://localhost:5173", Tools: tools}}}
}

func tool(name string) wire.MCPTool {
	return wire.MCPTool{Name: name, ArgsSchema: json.RawMessage(`{"type":"object"}`), TimeoutMs: 30_000}
}

// testMirror is a Mirror over tt with "echo", "block" and "slow", and
// the options given.
func testMirror(tt *testTools, opts Options) *Mirror {
	m := NewMirror("test", inline(tt.call), opts)
	m.Update(snapshot(tool("echo"), tool("block"), tool("slow")))
	return m
}

// bigMirror's tools/list answer is about 100 KB (25 more tools with 4 KB
// descriptions).
func bigMirror(tt *testTools) *Mirror {
	m := NewMirror("test", inline(tt.call), Options{})
	tools := []wire.MCPTool{tool("echo"), tool("block")}
	for i := range 25 {
		t := tool(fmt.Sprintf("big%03d", i))
		t.Description = strings.Repeat("d", 4<<10)
		tools = append(tools, t)
	}
	m.Update(snapshot(tools...))
	return m
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// awaitStarted waits for a call of tool to reach the Caller (past those
// of other tools).
func (tt *testTools) awaitStarted(t *testing.T, tool string) {
	t.Helper()
	for {
		select {
		case got := <-tt.started:
			if got == tool {
				return
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no call of %s reached the Caller", tool)
		}
	}
}

// awaitEnded waits for "block"'s ctx to end.
func (tt *testTools) awaitEnded(t *testing.T) error {
	t.Helper()
	select {
	case err := <-tt.ended:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the blocked call's ctx did not end")
		return nil
	}
}

// inline makes a Caller of a function whose results are all inline.
func inline(f func(ctx context.Context, sid, tool string, args json.RawMessage, progress func(wire.Progress)) (json.RawMessage, error)) Caller {
	return answers(func(ctx context.Context, sid, tool string, args json.RawMessage, progress func(wire.Progress)) (json.RawMessage, *wire.ResultFile, error) {
		r, err := f(ctx, sid, tool, args, progress)
		return r, nil, err
	})
}

// answers makes a Caller of a function that returns a result, a file or
// an error, as Core's answer carries them.
func answers(f func(ctx context.Context, sid, tool string, args json.RawMessage, progress func(wire.Progress)) (json.RawMessage, *wire.ResultFile, error)) Caller {
	return func(ctx context.Context, sid, tool string, args json.RawMessage, progress func(wire.Progress)) wire.AgentResult {
		r, file, err := f(ctx, sid, tool, args, progress)
		if err != nil {
			return wire.AgentResult{Error: wire.AsError(err)}
		}
		return wire.AgentResult{OK: true, Result: r, ResultFile: file}
	}
}

// parts is an answer as result, file and error.
func parts(out wire.AgentResult) (json.RawMessage, *wire.ResultFile, error) {
	if !out.OK {
		return nil, nil, out.Error
	}
	return out.Result, out.ResultFile, nil
}
