package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// BenchmarkACPFirstPrompt splits an ACP agent's first turn after the early
// start, and its warm turn, at the agent's first model request, so that
// what an agent does between Pedelec's session/prompt and that request is
// seen apart from the model's answer and the MCP call (issue 34, items 3
// and 6). Per agent, per iteration: createSession, a pause longer than the
// agent's start (PEDELEC_BENCH_PAUSE, a Go duration, default 20s, and
// then until the agent's processes are idle: on a loaded machine a start
// takes longer than any fixed pause), then
//
//   - first-model-ms: send_text to the first model request of any kind (a
//     side request such as a title counts: it is work before the answer);
//   - first-handler-ms: send_text to the page's handler running;
//   - warm-model-ms / warm-handler-ms: the same on the second turn.
//
// Each iteration's figures are logged (-v) so medians can be taken; the
// reported metrics are medians. PEDELEC_BENCH_STRACE=DIR runs each agent
// under `strace -f -tt -e trace=network` writing DIR/<agent>.strace, to
// see what it dials between the two (PEDELEC_BENCH_STRACE_TRACE sets
// another trace expression, e.g. process,file,network, to see what it
// runs and opens); PEDELEC_BENCH_AGENT_ENV=K=V,K=V adds to the agent's
// environment (to try an agent's switches by hand). Qwen Code's model is
// scripted past its side requests (qwenMainScript), and calls the page's
// tool as it is offered: declared (the session's tools.visible), else
// through tool_search and tool_call.
//
// go test ./e2e -run '^$' -bench ACPFirstPrompt -benchtime 3x -v
func BenchmarkACPFirstPrompt(b *testing.B) {
	pause := 20 * time.Second
	if d, err := time.ParseDuration(os.Getenv("PEDELEC_BENCH_PAUSE")); err == nil {
		pause = d
	}
	for _, cli := range []agentCLI{geminiACPCLI, opencodeACPCLI, copilotACPCLI, qwenACPCLI, claudeACPCLI, codexACPCLI} {
		b.Run(cli.name, func(b *testing.B) {
			ms := cli.newServer(b)
			run := withBaseURL(cli, ms.URL)
			if dir := os.Getenv("PEDELEC_BENCH_STRACE"); dir != "" {
				run.binary = straceWrapper(dir, cli)
			}
			env := cli.env(b, ms.URL)
			for _, kv := range strings.Split(os.Getenv("PEDELEC_BENCH_AGENT_ENV"), ",") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					env[k] = v
				}
			}
			srv := serveCLIEnv(b, run, env)
			var mu sync.Mutex
			var handled time.Time
			newPage := func() *wspage.Page {
				p := dialCLIPage(b, srv)
				p.Handle("update_counter", func(json.RawMessage) any {
					mu.Lock()
					if handled.IsZero() {
						handled = time.Now()
					}
					mu.Unlock()
					return map[string]int{"value": 1}
				})
				return p
			}
			push := func() {
				ms.Push(modelserver.Use("update_counter", map[string]int{"delta": 1}), modelserver.Say("Done."))
			}
			modelAt := func(start time.Time) time.Time { return firstRequestSince(ms, start) }
			if cli.name == qwenACPCLI.name {
				// Qwen's side requests after an answer (memory, suggestion)
				// may come after the next turn's send_text: its first
				// model request is the first of its own chat.
				script := &qwenMainScript{}
				ms.Push(script.step())
				push = func() {
					script.push(script.use("update_counter", map[string]int{"delta": 1}), modelserver.Say("Done."))
				}
				modelAt = func(start time.Time) time.Time {
					for _, r := range script.requests() {
						if !r.At.Before(start) {
							return r.At
						}
					}
					return time.Time{}
				}
			}
			// turn is one send_text: the time to the first model request
			// and to the handler.
			turn := func(page *wspage.Page, sid, text string) (model, handler time.Duration) {
				push()
				mu.Lock()
				handled = time.Time{}
				mu.Unlock()
				start := time.Now()
				done := page.AwaitDone(page.SendText(sid, text), cliTurnWait)
				if !done.OK {
					b.Fatalf("%s: %+v", cli.name, done.Error)
				}
				first := modelAt(start)
				if !first.IsZero() {
					model = first.Sub(start)
				}
				mu.Lock()
				if !handled.IsZero() {
					handler = handled.Sub(start)
				}
				mu.Unlock()
				return model, handler
			}
			var firstModel, firstHandler, warmModel, warmHandler []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				page := newPage()
				sid := cliSession(b, page, run)
				time.Sleep(pause)
				awaitIdleAgent(sid)
				rss, cpu0 := sessionRSS(sid), sessionCPU(sid)
				m, h := turn(page, sid, "Add one.")
				cpu := sessionCPU(sid) - cpu0
				firstModel, firstHandler = append(firstModel, m), append(firstHandler, h)
				cpu1 := sessionCPU(sid)
				wm, wh := turn(page, sid, "Add one again.")
				warmCPU := sessionCPU(sid) - cpu1
				warmModel, warmHandler = append(warmModel, wm), append(warmHandler, wh)
				b.Logf("%s #%d: first model %d ms, handler %d ms; warm model %d ms, handler %d ms; agent CPU first turn %d ms, warm turn %d ms; idle agent %.0f MB RSS; %s",
					cli.name, i+1, m.Milliseconds(), h.Milliseconds(), wm.Milliseconds(), wh.Milliseconds(), cpu.Milliseconds(), warmCPU.Milliseconds(), rss, lastStartNote(srv.Logs()))
				page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
			}
			if dir := os.Getenv("PEDELEC_BENCH_STRACE"); dir != "" {
				_ = os.WriteFile(filepath.Join(dir, cli.name+".core.log"), []byte(srv.Logs()), 0o644)
			}
			b.ReportMetric(medianMS(firstModel), "first-model-ms")
			b.ReportMetric(medianMS(warmModel), "warm-model-ms")
			b.ReportMetric(medianMS(firstHandler), "first-handler-ms")
			b.ReportMetric(medianMS(warmHandler), "warm-handler-ms")
		})
	}
}

// firstRequestSince is the arrival of the earliest model request, side or
// scripted, at or after start.
func firstRequestSince(ms *modelserver.Server, start time.Time) time.Time {
	var first time.Time
	for _, r := range append(ms.Requests(), ms.SideRequests()...) {
		if !r.At.Before(start) && (first.IsZero() || r.At.Before(first)) {
			first = r.At
		}
	}
	return first
}

// lastStartNote is the last "<agent> started: initialize after ..." line
// of Core's debug log: where the agent's start went.
func lastStartNote(logs string) string {
	i := strings.LastIndex(logs, " started: initialize after ")
	if i < 0 {
		return "no start note"
	}
	line := logs[i+1:]
	if j := strings.IndexAny(line, "\"\n"); j >= 0 {
		line = line[:j]
	}
	return line
}

// sessionRSS is the resident memory, in MB, of the processes that carry
// the session's id: what an idle agent costs.
func sessionRSS(sid string) float64 {
	var kb int
	for _, pid := range testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + sid) {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
				kb += n
			}
		}
	}
	return float64(kb) / 1024
}

// awaitIdleAgent waits (at most three minutes) until the session's
// processes use under 50 ms of CPU in a second: the early start, and any
// warm-up, is over.
func awaitIdleAgent(sid string) {
	deadline := time.Now().Add(3 * time.Minute)
	last := sessionCPU(sid)
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		now := sessionCPU(sid)
		if now-last < 50*time.Millisecond {
			return
		}
		last = now
	}
}

// sessionCPU is the user and system time of the processes that carry the
// session's id (their own, not their children's).
func sessionCPU(sid string) time.Duration {
	var ticks int
	for _, pid := range testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + sid) {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.Atoi(f[11])
			st, _ := strconv.Atoi(f[12])
			ticks += u + st
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

func medianMS(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// straceWrapper is an executable that runs cli's binary under strace
// (unless PEDELEC_BENCH_STRACE_OFF is set), with PEDELEC_BENCH_AGENT_ARGS
// appended to its arguments (an agent's own debug switches) and its stderr
// in DIR/<agent>.stderr.
func straceWrapper(dir string, cli agentCLI) func(testing.TB) string {
	return func(t testing.TB) string {
		real := cli.binary(t)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, cli.name+".strace")
		trace := "network,connect"
		if t := os.Getenv("PEDELEC_BENCH_STRACE_TRACE"); t != "" {
			trace = t
		}
		run := "strace -f -tt -s 400 -e trace=" + trace + " -o " + strconv.Quote(out) + " "
		if os.Getenv("PEDELEC_BENCH_STRACE_OFF") != "" {
			run = ""
		}
		script := filepath.Join(t.TempDir(), cli.name)
		// The wrapper sits outside the npm package, so Core asks it for
		// --version, which codex-acp does not answer: the script does.
		body := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 0.0.0-bench; exit 0; fi\nexec " + run + strconv.Quote(real) + ` "$@" ` + os.Getenv("PEDELEC_BENCH_AGENT_ARGS") +
			" 2>>" + strconv.Quote(filepath.Join(dir, cli.name+".stderr")) + "\n"
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return script
	}
}
