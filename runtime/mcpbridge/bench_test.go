package mcpbridge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The hops of `pedelec mcp` in process (docs/performance.md, "The MCP
// path"): cpu-µs/op is the process's CPU per call, client included,
// which a loaded machine disturbs less than ns/op.
//
//	go test ./runtime/mcpbridge -run '^$' -bench . -benchmem

// One tools/call from the SDK's client through ServeStdio (the screen,
// the SDK's server, the mirror's handler) to a Caller that answers at once.
func BenchmarkStdioCall(b *testing.B) {
	m := NewMirror("bench", inline(func(_ context.Context, _, _ string, args json.RawMessage, _ func(wire.Progress)) (json.RawMessage, error) {
		return json.RawMessage(`{"n":1}`), nil
	}), Options{})
	m.Update(snapshot(tool("ping")))
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	go ServeStdio(context.Background(), m, toServer, fromServer)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "ping", Arguments: map[string]any{"n": 1}}
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// One call over the bridge's link to Core: Bridge.Call against a server
// that proves its key and answers at once, as Core's call route would.
func BenchmarkBridgeCall(b *testing.B) {
	dir := b.TempDir()
	srv := httptest.NewServer(provingCore(b, dir, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true,"result":{"n":1}}`))
	}))
	defer srv.Close()
	if err := os.WriteFile(filepath.Join(dir, wire.CoreTokenFile), []byte("tok"), 0o600); err != nil {
		b.Fatal(err)
	}
	br := NewBridge(srv.URL, dir, log.New(io.Discard))
	args := json.RawMessage(`{"n":1}`)
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		if out := br.Call(context.Background(), "s_1", "ping", args, nil); !out.OK {
			b.Fatal(out.Error)
		}
	}
}

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
