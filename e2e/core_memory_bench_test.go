package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	pruntime "github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// rssMB is a process's resident set size, from /proc/<pid>/status.
func rssMB(tb testing.TB, pid int) float64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(v), "%f", &kb)
			return kb / 1024
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

// nearLimitSkills is a manifest near the default limits that still fits a
// 1 MiB frame: the most tools allowed, 64-character names, long
// descriptions and schemas of 30 described properties each.
func nearLimitSkills() json.RawMessage {
	props := map[string]any{}
	for i := 0; i < 30; i++ {
		props[fmt.Sprintf("field_%02d", i)] = map[string]any{"type": "string", "maxLength": 100,
			"description": strings.Repeat("describes this field ", 4)}
	}
	tools := make([]map[string]any, pruntime.DefaultLimits().ToolsPerSession)
	for i := range tools {
		tools[i] = map[string]any{
			"name":        fmt.Sprintf("tool_%03d_%s", i, strings.Repeat("x", 55)),
			"description": strings.Repeat("A long tool description. ", 160),
			"argsSchema":  map[string]any{"type": "object", "properties": props, "required": []string{"field_00"}},
		}
	}
	data, _ := json.Marshal(map[string]any{"guidance": strings.Repeat("Guidance text. ", 2000), "tools": tools})
	return data
}

// BenchmarkCoreRSSAfterSessions measures the real `pedelec serve`: its RSS
// idle, with the most sessions Core allows, of 128 tools each (every limit
// near its default),
// and after all of them ended and their pages closed. Core must come back
// to within 2x of idle; settle_s is how long that took.
//
//	go test -run '^$' -bench BenchmarkCoreRSSAfterSessions -benchtime 1x ./e2e
func BenchmarkCoreRSSAfterSessions(b *testing.B) {
	srv := testenv.Serve(b, nil)
	pid := srv.Cmd.Process.Pid
	time.Sleep(time.Second)
	idle := rssMB(b, pid)
	skills := nearLimitSkills()
	b.Logf("manifest: %d bytes", len(skills))
	var peak, after float64
	var settle time.Duration
	for i := 0; i < b.N; i++ {
		var pages []*wspage.Page
		var ids [][]string
		lim := pruntime.DefaultLimits()
		for c := 0; c < lim.Sessions/lim.SessionsPerConnection; c++ {
			p := wspage.Dial(b, srv.WSURL, "")
			pages = append(pages, p)
			var mine []string
			for s := 0; s < lim.SessionsPerConnection; s++ {
				info := p.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: skills})
				mine = append(mine, info.SessionID)
			}
			ids = append(ids, mine)
		}
		if r := rssMB(b, pid); r > peak {
			peak = r
		}
		for c, p := range pages {
			for _, id := range ids[c] {
				p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: id})
			}
			p.Close()
		}
		// Wait until RSS is within 2x of idle, or has stopped falling for
		// 20s (then the number is what Core keeps).
		start := time.Now()
		low, lowAt := rssMB(b, pid), time.Now()
		for {
			after = rssMB(b, pid)
			if after < low-0.5 {
				low, lowAt = after, time.Now()
			}
			if after <= 2*idle || time.Since(lowAt) > 20*time.Second {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		settle = time.Since(start)
	}
	b.ReportMetric(idle, "idle_MB")
	b.ReportMetric(peak, "peak_MB")
	b.ReportMetric(after, "after_MB")
	b.ReportMetric(settle.Seconds(), "settle_s")
	b.Logf("RSS: idle %.1f MB, peak %.1f MB with %d sessions of %d tools, %.1f MB %.1fs after they ended", idle, peak, pruntime.DefaultLimits().Sessions, pruntime.DefaultLimits().ToolsPerSession, after, settle.Seconds())
	if after > 2*idle {
		b.Errorf("RSS after ending every session is %.1f MB, over 2x the idle %.1f MB", after, idle)
	}
}
