package e2e

// What a declarative tool's call costs against an imperative one, over one
// MCP session to `pedelec mcp`, with the polyfill and with Chromium's
// native WebMCP (docs/performance.md):
//
//	go test -run '^$' -bench BenchmarkWebMCPFormCall -benchtime 200x ./e2e

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func BenchmarkWebMCPFormCall(b *testing.B) {
	for _, mode := range webmcpModes {
		b.Run(mode.name, func(b *testing.B) {
			br, core := webmcpPage(b, mode.native, "forms.html")
			br.js(b, nil, `
await document.modelContext.registerTool({ name: "ping", description: "Answer at once.", execute: async () => ({ pong: true }) });
document.getElementById("note").addEventListener("submit", () => { window.notes.length = 0; }, true);
window.session = await window.pedelec.createSession({ provider: "mcp", webmcp: true });
`)
			cmd := exec.Command(testenv.Binary(b), "mcp", "--core-url", core.URL, "--state-dir", core.StateDir)
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "pedelec-bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			for _, tc := range []struct{ name, tool string }{{"registerTool", "ping"}, {"form", "add_note"}} {
				b.Run(tc.name, func(b *testing.B) {
					call := func() time.Duration {
						start := time.Now()
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{"text": "x"}})
						if err != nil || res.IsError {
							b.Fatalf("%s: %v %+v", tc.tool, err, res)
						}
						return time.Since(start)
					}
					for range 10 { // warm connections and the page's JIT
						call()
					}
					d := make([]time.Duration, 0, b.N)
					b.ResetTimer()
					for range b.N {
						d = append(d, call())
					}
					reportPercentiles(b, d)
				})
			}
		})
	}
}
