package mcpbridge

import (
	"context"
	"encoding/json"
	"io"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressLog is what a client heard of notifications/progress.
type progressLog struct {
	mu    sync.Mutex
	heard []mcp.ProgressNotificationParams
}

func (pl *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.heard = append(pl.heard, *req.Params)
}

func (pl *progressLog) all() []mcp.ProgressNotificationParams {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return append([]mcp.ProgressNotificationParams(nil), pl.heard...)
}

// stdioClient connects the go-sdk's client to m over stdio, hearing
// progress on pl.
func stdioClient(t *testing.T, m *Mirror, pl *progressLog) *mcp.ClientSession {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- ServeStdio(context.Background(), m, toServer, fromServer); fromServer.Close() }()
	t.Cleanup(func() {
		fromClient.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	return sdkClient(t, &mcp.IOTransport{Reader: toClient, Writer: fromClient}, pl)
}

func sdkClient(t *testing.T, transport mcp.Transport, pl *progressLog) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: pl.handler})
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callSlow calls "slow", with a progressToken when token is not nil, and
// checks its result.
func callSlow(t *testing.T, cs *mcp.ClientSession, token any) {
	t.Helper()
	params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}}
	if token != nil {
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
}

var waitingMessage = regexp.MustCompile(`^waiting for the page's handler \(\d+ s of 30 s\)$`)

// A call that carries a progressToken is told, every ProgressInterval
// while the page's handler has not answered, how long it has waited, in
// progress that only grows, and hears nothing after its result; a call
// without one hears nothing. Over stdio and over HTTP.
func TestProgressWhileWaiting(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			tt := newTestTools()
			tt.slow = 300 * time.Millisecond
			m := testMirror(tt, Options{ProgressInterval: 40 * time.Millisecond})
			pl := &progressLog{}
			var cs *mcp.ClientSession
			if transport == "stdio" {
				cs = stdioClient(t, m, pl)
			} else {
				cs = sdkClient(t, &mcp.StreamableClientTransport{Endpoint: startHTTP(t, m, 1<<20).url}, pl)
			}

			callSlow(t, cs, nil)
			if heard := pl.all(); len(heard) != 0 {
				t.Fatalf("a call without a progressToken heard %+v", heard)
			}

			callSlow(t, cs, "tok")
			// The client hands notifications to its handler on goroutines
			// of its own, so one sent before the result may be logged just
			// after callSlow returns: let the log settle first.
			heard := pl.all()
			for settled := time.Now().Add(2 * time.Second); time.Now().Before(settled); {
				time.Sleep(100 * time.Millisecond)
				now := pl.all()
				if len(now) == len(heard) {
					break
				}
				heard = now
			}
			time.Sleep(200 * time.Millisecond)
			if after := pl.all(); len(after) != len(heard) {
				t.Fatalf("progress after the result: %+v", after[len(heard):])
			}
			if len(heard) < 3 {
				t.Fatalf("heard %d notifications while a 300 ms call waited, want one every 40 ms", len(heard))
			}
			last := -1.0
			for _, p := range heard {
				if p.ProgressToken != "tok" || p.Progress <= last || p.Total != 0 || !waitingMessage.MatchString(p.Message) {
					t.Fatalf("notification %+v after progress %v", p, last)
				}
				last = p.Progress
			}
		})
	}
}

// What the call reports of its own progress (issue 26: the page's
// ctx.progress) reaches the client, and the heartbeat then stops: the
// handler's progress has its own scale.
func TestProgressFromTheCall(t *testing.T) {
	tt := newTestTools()
	tt.slow = 200 * time.Millisecond
	tt.report = []wire.Progress{{Progress: 5, Total: 10, Message: "half way"}, {Progress: 4, Message: "backwards: dropped"}}
	m := testMirror(tt, Options{ProgressInterval: 30 * time.Millisecond})
	pl := &progressLog{}
	cs := stdioClient(t, m, pl)
	callSlow(t, cs, 7)
	heard := pl.all()
	if len(heard) != 1 {
		raw, _ := json.Marshal(heard)
		t.Fatalf("heard %s, want only the call's own report", raw)
	}
	if p := heard[0]; p.Progress != 5 || p.Total != 10 || p.Message != "half way" || p.ProgressToken != 7.0 {
		t.Fatalf("heard %+v", p)
	}
}

// A call that reports after heartbeats went out: its reports are moved up
// past the last heartbeat, so progress still only grows (MCP's rule), and
// the heartbeats stop.
func TestProgressFromTheCallAfterHeartbeats(t *testing.T) {
	tt := newTestTools()
	tt.slow = 150 * time.Millisecond
	tt.reportAfter = 120 * time.Millisecond
	tt.report = []wire.Progress{{Progress: 2, Total: 10, Message: "two of ten"}}
	m := testMirror(tt, Options{ProgressInterval: 30 * time.Millisecond})
	pl := &progressLog{}
	cs := stdioClient(t, m, pl)
	callSlow(t, cs, 7)
	heard := pl.all()
	if len(heard) < 2 {
		t.Fatalf("heard %d notifications, want heartbeats then the report", len(heard))
	}
	last := heard[len(heard)-1]
	base := heard[len(heard)-2].Progress
	if last.Message != "two of ten" || last.Progress != base+2 || last.Total != base+10 {
		raw, _ := json.Marshal(heard)
		t.Fatalf("heard %s", raw)
	}
	for i := 1; i < len(heard); i++ {
		if heard[i].Progress <= heard[i-1].Progress {
			t.Fatalf("progress went from %v to %v", heard[i-1].Progress, heard[i].Progress)
		}
	}
}
