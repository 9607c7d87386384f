package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/mcpbridge"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// `pedelec mcp`'s calls share one link to Core: calls made at once each
// get their own answer, no call after the first makes a request of its
// own, and a call the client gives up is cancelled in Core (its pending
// call settles), while the link carries on.
func TestMCPBridgeLink(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", heldProvider{turns: make(chan *heldTurn, 1)}, provider.NewMCP())
	})
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return map[string]any{"got": json.RawMessage(args)} })
	info := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(harnessSkills)})
	if err := h.core.writeToken(); err != nil {
		t.Fatal(err)
	}
	b := mcpbridge.NewBridge(h.srv.URL, h.core.opts.StateDir, log.New(io.Discard))
	call := func(ctx context.Context, tool, args string) wire.AgentResult {
		return b.Call(ctx, info.SessionID, tool, json.RawMessage(args), nil)
	}
	if out := call(context.Background(), "echo", `{"x":0}`); !out.OK || string(out.Result) != `{"got":{"x":0}}` {
		t.Fatalf("first call: %+v", out)
	}
	admitted := h.core.Counts().AdmittedRequests
	var wg sync.WaitGroup
	for i := 1; i <= 8; i++ { // the session's limit of pending calls
		wg.Go(func() {
			args := fmt.Sprintf(`{"x":%d}`, i)
			if out := call(context.Background(), "echo", args); !out.OK || string(out.Result) != `{"got":`+args+`}` {
				t.Errorf("call %d: %+v", i, out)
			}
		})
	}
	wg.Wait()
	if n := h.core.Counts().AdmittedRequests - admitted; n != 0 {
		t.Fatalf("8 calls made %d requests of their own", n)
	}
	if out := call(context.Background(), "echo", `{"x":"one"}`); out.OK || out.Error.Code != wire.CodeToolArgsInvalid {
		t.Fatalf("Core's refusal: %+v", out)
	}

	// slow is never answered: the client gives up, Core settles the call.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if out := call(ctx, "slow", `{}`); out.OK || out.Error.Code != wire.CodeToolCallCancelled {
		t.Fatalf("given up: %+v", out)
	}
	settled := awaitEvent(t, p, wire.EventToolCallSettled, "", func(e wire.Event) bool {
		var d wire.ToolCallSettledData
		_ = json.Unmarshal(e.Data.(json.RawMessage), &d)
		return d.Tool == "slow"
	})
	var d wire.ToolCallSettledData
	_ = json.Unmarshal(settled.Data.(json.RawMessage), &d)
	if d.Outcome != wire.OutcomeCancelled {
		t.Fatalf("the slow call settled as %s, want cancelled", d.Outcome)
	}
	if out := call(context.Background(), "echo", `{"x":99}`); !out.OK || h.core.Counts().AdmittedRequests != admitted {
		t.Fatalf("after a cancel: %+v (requests %d)", out, h.core.Counts().AdmittedRequests-admitted)
	}
}

// The link as any client speaks it: the upgrade needs the token; a call
// is a line, its answer a line; closing the link cancels its calls.
func TestMCPBridgeLinkWire(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", heldProvider{turns: make(chan *heldTurn, 1)}, provider.NewMCP())
	})
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return args })
	info := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(harnessSkills)})
	open := func(token string) (net.Conn, *bufio.Reader, string) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(h.srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n",
			wire.MCPLinkPath, strings.TrimPrefix(h.srv.URL, "http://"), token, wire.MCPLinkProtocol)
		in := bufio.NewReader(conn)
		status, _ := in.ReadString('\n')
		for line, _ := in.ReadString('\n'); line != "\r\n" && line != ""; line, _ = in.ReadString('\n') {
		}
		return conn, in, status
	}
	if _, _, status := open("nope"); !strings.Contains(status, " 401 ") {
		t.Fatalf("without the token: %q", status)
	}
	conn, in, status := open(h.core.token)
	if !strings.Contains(status, " 101 ") {
		t.Fatalf("upgrade: %q", status)
	}
	fmt.Fprintf(conn, `{"id":7,"sessionId":%q,"tool":"echo","args":{"x":3}}`+"\n", info.SessionID)
	if line, _ := in.ReadString('\n'); line != `{"id":7,"answer":{"ok":true,"result":{"x":3}}}`+"\n" {
		t.Fatalf("answer: %q", line)
	}
	fmt.Fprintf(conn, `{"id":8,"sessionId":%q,"tool":"slow","args":{}}`+"\n", info.SessionID)
	isSlow := func(e wire.Event) bool {
		var d wire.ToolCallSettledData // its tool field is tool_call's too
		_ = json.Unmarshal(e.Data.(json.RawMessage), &d)
		return d.Tool == "slow"
	}
	awaitEvent(t, p, wire.EventToolCall, "", isSlow)
	conn.Close()
	settled := awaitEvent(t, p, wire.EventToolCallSettled, "", isSlow)
	var d wire.ToolCallSettledData
	_ = json.Unmarshal(settled.Data.(json.RawMessage), &d)
	if d.Outcome != wire.OutcomeCancelled {
		t.Fatalf("after the link closed: %+v", d)
	}
}
