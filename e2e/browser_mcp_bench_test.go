package e2e

// The benchmark command for MCP calls (docs/mcp.md):
//
//	go test -run '^$' -bench BenchmarkMCPCall -benchtime 500x ./e2e
//
// Both sub-benchmarks call the same page tool in real Chromium, b.N times,
// and report the latency percentiles: "mcp" over one open MCP session to
// `pedelec mcp` (each call timed at the client), "tool-call" through a
// script session whose agent runs `pedelec tool-call` once per call (each
// call timed in the page, from one handler invocation to the next: the
// whole loop of a result going back to the agent and its next process
// starting, connecting and calling).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const benchPage = `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();
window.pings = [];
const ping = defineTool({
  name: "ping", description: "Answer at once with a counter.",
  argsSchema: { type: "object", properties: { n: { type: "integer" } }, required: [] },
  handler: () => { window.pings.push(performance.now()); return { n: window.pings.length }; },
});
window.benchMCP = await pedelec.createSession({ provider: "mcp", skills: { guidance: "g", tools: [ping] } });
window.benchScript = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [ping] } });
return window.benchScript.sessionId;
`

// reportPercentiles puts p50/p90/p99 (milliseconds) on the benchmark line.
func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	at := func(p float64) float64 {
		return float64(d[min(len(d)-1, int(p*float64(len(d))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.90), "p90-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op") // the loop's mean says nothing here
	b.Logf("%d calls: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms", len(d), at(0.50), at(0.90), at(0.99), float64(d[len(d)-1].Microseconds())/1000)
}

func BenchmarkMCPCall(b *testing.B) {
	// Core logs at info, as users run it (PEDELEC_BENCH_LOG_LEVEL=debug
	// for the tests' level: its per-call debug lines were a fifth of
	// Core's CPU here).
	level := "info"
	if l := os.Getenv("PEDELEC_BENCH_LOG_LEVEL"); l != "" {
		level = l
	}
	env := newSDKEnvWith(b, []string{"PEDELEC_LOG_LEVEL=" + level})
	env.b.js(b, nil, benchPage)
	quietDevTools(b, env.b)

	b.Run("mcp", func(b *testing.B) {
		cmd := exec.Command(testenv.Binary(b), "mcp", "--core-url", env.core.URL, "--state-dir", env.core.StateDir)
		client := mcp.NewClient(&mcp.Implementation{Name: "pedelec-bench", Version: "1"}, nil)
		ctx := context.Background()
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		call := func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ping", Arguments: map[string]any{"n": 1}})
			if err != nil || res.IsError {
				b.Fatalf("ping: %v %+v", err, res)
			}
		}
		for range 20 { // warm connections and the page's JIT
			call()
		}
		durations := make([]time.Duration, 0, b.N)
		before := debugCounts(b, env.core)
		b.ResetTimer()
		for range b.N {
			start := time.Now()
			call()
			durations = append(durations, time.Since(start))
		}
		b.StopTimer()
		// What the page's socket carried per call: Chromium's cost grows
		// with the messages, not the frames in them.
		after := debugCounts(b, env.core)
		b.ReportMetric(float64(after.PageMessages-before.PageMessages)/float64(b.N), "page-msgs/call")
		b.ReportMetric(float64(after.PageFrames-before.PageFrames)/float64(b.N), "page-frames/call")
		reportPercentiles(b, durations)
	})

	b.Run("tool-call", func(b *testing.B) {
		var sid string
		env.b.js(b, &sid, `window.pings = []; return window.benchScript.sessionId;`)
		script := strings.Repeat("call ping {\"n\":1}\n", b.N+1)
		b.ResetTimer()
		// The turn outlasts one evaluation's deadline: start it, then poll.
		env.b.js(b, nil, fmt.Sprintf(`window.benchDone = false;
window.benchScript.sendText(%s).then(() => { window.benchDone = true; }, (e) => { window.benchDone = true; window.benchErr = String(e); });`, mustJSONString(script)))
		env.b.waitJS(b, 30*time.Minute, "window.benchDone", "the tool-call turn")
		b.StopTimer()
		var pings []float64
		env.b.js(b, &pings, `if (window.benchErr) throw new Error(window.benchErr); return window.pings;`)
		if len(pings) != b.N+1 {
			b.Fatalf("the page saw %d calls, want %d", len(pings), b.N+1)
		}
		durations := make([]time.Duration, 0, b.N)
		for i := 1; i < len(pings); i++ { // the first call also waits for the agent to start
			durations = append(durations, time.Duration((pings[i]-pings[i-1])*float64(time.Millisecond)))
		}
		reportPercentiles(b, durations)
	})
}

func mustJSONString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

// quietDevTools turns off the DevTools domains chromedp enabled that a
// user's page does not have, once a benchmark's page is set up: with
// Network on, the renderer copies every WebSocket message into an event
// for the test process (which also runs the MCP client), and the
// browser's recording of frames grows with every call. Only Runtime (to
// evaluate) stays on. e2e/bench does the same.
func quietDevTools(b *testing.B, br *browser) {
	b.Helper()
	ctx, cancel := context.WithTimeout(br.ctx, 10*time.Second)
	defer cancel()
	for _, disable := range []cdp.Command[cdp.Empty, cdp.Empty]{network.Disable, cdplog.Disable, css.Disable, dom.Disable} {
		if _, err := chromedp.Call(ctx, disable, cdp.Empty{}); err != nil {
			b.Fatalf("%s: %v", disable.Method, err)
		}
	}
}
