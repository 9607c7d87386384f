// Command bench measures what a Pedelec tool call costs, end to end, with
// the real parts: the release-built `pedelec` binary, `pedelec serve`, and
// a headless Chromium page that imported the SDK from Core and answers a
// trivial tool. It prints every figure of issue 15 next to its target and
// the ratio, then how the figures grow with sessions, tools, callers and
// argument size, and writes the same into docs/performance.md (between the
// bench markers; the rest of that file is kept). Loopback only; bounded by
// -timeout. Run it with scripts/bench.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime"
)

type config struct {
	quick    bool
	runs     int
	out      string
	chromium string
	timeout  time.Duration
	only     string // one part: startup, calls or memory, or validate-tools (a part of startup); "" for all
	// pageProfile, if set, is where the page's JavaScript CPU profile of
	// the first one-connection run goes (Chromium's .cpuprofile format).
	pageProfile string
}

// part says whether the run measures part (startup, calls, memory).
func (c config) part(name string) bool { return c.only == "" || c.only == name }

func main() {
	var cfg config
	flag.BoolVar(&cfg.quick, "quick", false, "fewer samples (a smoke run, about a minute)")
	flag.IntVar(&cfg.runs, "runs", 3, "repeat the throughput and CPU measurements this many times and report the median")
	flag.StringVar(&cfg.out, "out", filepath.Join(repoRoot(), "docs", "performance.md"), "Markdown file to write the results into (empty: do not write)")
	flag.StringVar(&cfg.chromium, "chromium", envOr("PEDELEC_CHROMIUM", "/usr/bin/chromium"), "Chromium executable")
	flag.DurationVar(&cfg.timeout, "timeout", 15*time.Minute, "give up after this long")
	flag.StringVar(&cfg.only, "only", "", "measure one part: startup (init, serve start, validate-tools), calls (process and connection figures with Chromium), memory, or just validate-tools (seconds); implies -out ''")
	flag.StringVar(&cfg.pageProfile, "page-profile", "", "write a JavaScript CPU profile of the page during the first one-connection run to this .cpuprofile file (that run's figures then include the profiler's cost); summarize it with scripts/cpuprofile-top.py or open it in Chrome DevTools")
	flag.Parse()
	if cfg.only != "" {
		cfg.out = "" // a partial run must not replace the full report
	}
	if cfg.quick {
		cfg.runs = 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	go func() {
		<-ctx.Done()
		if ctx.Err() != context.DeadlineExceeded {
			return
		}
		fmt.Fprintln(os.Stderr, "bench: -timeout reached; stopping")
		time.Sleep(15 * time.Second) // let deferred stops run
		os.Exit(3)
	}()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// n picks a sample count: full, or quick.
func (c config) n(full, quick int) int {
	if c.quick {
		return quick
	}
	return full
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench %s: "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func run(ctx context.Context, cfg config) error {
	dir, err := os.MkdirTemp("", "pedelec-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r := &report{started: time.Now(), loadStart: loadAverage(), quick: cfg.quick, runs: cfg.runs}

	logf("building pedelec and the hello-world baseline (release flags)")
	pedelec, hello, err := buildBinaries(dir)
	if err != nil {
		return err
	}
	agentExtra, agentFile, err := writeHoldAgent(dir)
	if err != nil {
		return err
	}
	env := serveEnv(dir, agentExtra...)

	if cfg.only == "validate-tools" {
		if err := measureValidate(cfg, r, pedelec, hello, dir, env); err != nil {
			return err
		}
		logf("%s", r.figures[0].how) // report.add printed the figure
		return nil
	}
	if cfg.part("startup") {
		if err := measureStartup(ctx, cfg, r, pedelec, hello, dir, env); err != nil {
			return err
		}
	}
	if cfg.part("calls") {
		if err := measureCalls(ctx, cfg, r, pedelec, hello, dir, env, agentFile); err != nil {
			return err
		}
	}
	if cfg.part("memory") {
		if err := measureMemory(ctx, cfg, r, pedelec, dir, env); err != nil {
			return err
		}
	}
	r.loadEnd = loadAverage()
	r.finished = time.Now()
	text := r.render()
	fmt.Println(text)
	if cfg.out != "" {
		if err := writeInto(cfg.out, text); err != nil {
			return err
		}
		logf("wrote %s", cfg.out)
	}
	return nil
}

// measureCalls: the figures that need serve and a Chromium page.
func measureCalls(ctx context.Context, cfg config, r *report, pedelec, hello, dir string, env []string, agentFile string) error {
	logf("starting pedelec serve and a Chromium page with the SDK")
	// 16 callers at once exceed the default of 8 pending calls.
	core, _, err := startServe(ctx, pedelec, dir, []string{"--max-pending-calls", "32"}, env)
	if err != nil {
		return err
	}
	defer core.stop()
	pg, err := openPage(cfg.chromium, core.url, dir)
	if err != nil {
		return fmt.Errorf("%w\nserve's log:\n%s", err, core.logs.String())
	}
	defer pg.close()
	agent, err := waitAgentFile(agentFile, 30*time.Second)
	if err != nil {
		return fmt.Errorf("%w\nserve's log:\n%s", err, core.logs.String())
	}
	if agent.threadID != pg.sessionID {
		return fmt.Errorf("agent is in session %s, the page made %s", agent.threadID, pg.sessionID)
	}

	if err := measureProcessCall(ctx, cfg, r, pedelec, hello, core, agent); err != nil {
		return err
	}
	if err := measureConnection(ctx, cfg, r, core, pg, agent); err != nil {
		return err
	}
	return measureGrowth(ctx, cfg, r, core, agent)
}

// measureStartup: inittrace per agent subcommand, serve's exec → first
// /healthz, validate-tools on 1,000 tools.
func measureStartup(ctx context.Context, cfg config, r *report, pedelec, hello, dir string, env []string) error {
	logf("package init (inittrace) of every subcommand an agent runs")
	subcommands := [][]string{{"tool-call", "bench_echo", "{}"}, {"tool-spec", "bench_echo"}}
	if _, _, err := timeRun(pedelec, []string{"mcp", "--help"}, env); err == nil {
		subcommands = append(subcommands, []string{"mcp", "--help"})
	}
	for _, sub := range subcommands {
		var totals []float64
		var top []string
		least := math.Inf(1)
		perPackage := map[string]float64{}
		for range cfg.n(9, 3) {
			total, t, err := initTrace(pedelec, sub, env, perPackage)
			if err != nil {
				return err
			}
			totals = append(totals, total)
			least = min(least, total)
			top = t
		}
		r.add(figure{name: "init: pedelec " + sub[0], value: median(totals), unit: "ms", target: 2, watched: true,
			how: fmt.Sprintf("median of %d runs of the sum of GODEBUG=inittrace=1 clock times (least disturbed run %.2f ms); largest: %s",
				len(totals), least, strings.Join(top, ", "))})
		sum := 0.0
		for _, v := range perPackage {
			sum += v
		}
		r.add(figure{name: "init: pedelec " + sub[0] + ", per-package least", value: sum, unit: "ms", target: math.NaN(),
			how: fmt.Sprintf("sum over the %d packages of each one's least init time in those runs: what init costs with the machine's load mostly filtered out", len(perPackage))})
	}

	// The floor: a program that links only net/http, in the same runs.
	if floor, err := buildProgram(dir, "httpfloor", httpFloorSource); err != nil {
		return err
	} else {
		perPackage := map[string]float64{}
		for range cfg.n(9, 3) {
			if _, _, err := initTrace(floor, nil, env, perPackage); err != nil {
				return err
			}
		}
		sum := 0.0
		for _, v := range perPackage {
			sum += v
		}
		r.add(figure{name: "init: a program linking only net/http, per-package least", value: sum, unit: "ms", target: math.NaN(),
			how: "the same sum for hello-world plus net/http: what any binary that also serves HTTP pays before main"})
	}

	logf("pedelec serve: exec → first /healthz answered")
	var ready []float64
	for range cfg.n(9, 3) {
		p, d, err := startServe(ctx, pedelec, dir, nil, env)
		if err != nil {
			return err
		}
		p.stop()
		ready = append(ready, ms(d))
	}
	r.add(figure{name: "serve: exec → first /healthz", value: median(ready), unit: "ms", target: 50,
		how: "median of starts, polling /healthz every 0.2 ms"})

	return measureValidate(cfg, r, pedelec, hello, dir, env)
}

// measureValidate: validate-tools on the 1,000-tool manifest, against
// hello-world started the same way, interleaved.
func measureValidate(cfg config, r *report, pedelec, hello, dir string, env []string) error {
	logf("validate-tools on 1,000 tools")
	manifest := filepath.Join(dir, "tools-1000.json")
	if err := os.WriteFile(manifest, benchSkills(1000), 0o644); err != nil {
		return err
	}
	var vt, vtCPU, hw []time.Duration
	for range cfg.n(15, 5) {
		d, cpu, _, _, err := timeRunCPU(pedelec, []string{"validate-tools", manifest}, env)
		if err != nil {
			return fmt.Errorf("validate-tools: %w", err)
		}
		vt, vtCPU = append(vt, d), append(vtCPU, cpu)
		d, _, _ = timeRun(hello, nil, env)
		hw = append(hw, d)
	}
	r.add(figure{name: "validate-tools, 1,000 tools (wall)", value: ms(percentile(vt, 50)), unit: "ms", target: 20,
		how: fmt.Sprintf("p50 of whole-process wall time (CPU p50 %.2f ms); hello-world starts in %.2f ms on the same run",
			ms(percentile(vtCPU, 50)), ms(percentile(hw, 50)))})
	return nil
}

// measureProcessCall: the agent's way, a fresh `pedelec tool-call` process
// per call, against hello-world started the same way, interleaved.
func measureProcessCall(ctx context.Context, cfg config, r *report, pedelec, hello string, core *coreProc, agent agentEnv) error {
	logf("tool-call process round trip vs hello-world")
	env := agent.environ()
	var tc, hw, tcCPU, hwCPU []time.Duration
	var tcFaults, hwFaults []float64
	coreCPU0, _ := procCPU(core.cmd.Process.Pid)
	for i := range cfg.n(200, 40) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d, cpu, faults, out, err := timeRunCPU(pedelec, []string{"tool-call", "bench_echo", `{"n":1}`}, env)
		if err != nil || !strings.HasPrefix(string(out), `{"ok":true`) {
			return fmt.Errorf("tool-call #%d: %v: %s", i, err, out)
		}
		tc, tcCPU, tcFaults = append(tc, d), append(tcCPU, cpu), append(tcFaults, float64(faults))
		d, cpu, faults, _, _ = timeRunCPU(hello, nil, env)
		hw, hwCPU, hwFaults = append(hw, d), append(hwCPU, cpu), append(hwFaults, float64(faults))
	}
	coreCPU1, _ := procCPU(core.cmd.Process.Pid)
	tcp, hwp := ms(percentile(tc, 50)), ms(percentile(hw, 50))
	r.add(figure{name: "tool-call process round trip p50", value: tcp, unit: "ms", target: math.NaN(),
		how: fmt.Sprintf("fresh process per call, %d calls; p90 %.2f ms", len(tc), ms(percentile(tc, 90)))})
	r.add(figure{name: "hello-world process p50", value: hwp, unit: "ms", target: math.NaN(),
		how: "static Go binary printing one JSON line, started the same way, interleaved"})
	r.add(figure{name: "tool-call ÷ hello-world (p50)", value: tcp / hwp, unit: "×", target: 1.5, watched: true, how: "ratio of the two lines above"})
	r.add(figure{name: "tool-call process CPU p50", value: ms(percentile(tcCPU, 50)), unit: "ms", target: math.NaN(),
		how: fmt.Sprintf("user+system time of the tool-call process (hello-world: %.2f ms); steadier than wall time on a loaded machine", ms(percentile(hwCPU, 50)))})
	r.add(figure{name: "tool-call process page faults p50", value: median(tcFaults), unit: "faults", target: math.NaN(),
		how: fmt.Sprintf("minor faults (getrusage) of the tool-call process (hello-world: %.0f); hardly moved by load, and most of a process's start-up cost on this VM", median(hwFaults))})
	r.add(figure{name: "Core CPU per tool-call process", value: ms(coreCPU1-coreCPU0) / float64(len(tc)), unit: "ms", target: math.NaN(),
		how: "utime+stime of serve over the process calls ÷ calls: a new connection each (its peer check included)"})
	return nil
}

// measureConnection: one keep-alive connection, one caller at a time, with
// Core's and Chromium's CPU; then 8 callers.
func measureConnection(ctx context.Context, cfg config, r *report, core *coreProc, pg *page, agent agentEnv) error {
	n := cfg.n(2000, 300)
	var p50s, p99s, rates, coreCPU, rendCPU, otherCPU, tasks, scripts, msgs, frames []float64
	for run := range cfg.runs {
		logf("one connection: %d sequential calls (run %d/%d)", n, run+1, cfg.runs)
		cpu0, _ := procCPU(core.cmd.Process.Pid)
		msgs0, frames0, err := core.pageWrites()
		if err != nil {
			return err
		}
		rend0, other0 := sumCPU(pg.rendererPIDs()), sumCPU(pg.otherPIDs())
		task0, script0, err := pg.metrics()
		if err != nil {
			return err
		}
		profiling := cfg.pageProfile != "" && run == 0
		if profiling {
			if err := pg.startProfile(); err != nil {
				return err
			}
		}
		lat, total, err := sequential(agent, argsOfSize(16), n)
		if err != nil {
			return err
		}
		if profiling {
			if err := pg.stopProfile(cfg.pageProfile); err != nil {
				return err
			}
			logf("page JavaScript profile written to %s", cfg.pageProfile)
		}
		cpu1, _ := procCPU(core.cmd.Process.Pid)
		msgs1, frames1, err := core.pageWrites()
		if err != nil {
			return err
		}
		rend1, other1 := sumCPU(pg.rendererPIDs()), sumCPU(pg.otherPIDs())
		task1, script1, err := pg.metrics()
		if err != nil {
			return err
		}
		calls := float64(n + 20) // the warm-up calls ran inside the CPU window too
		p50s = append(p50s, ms(percentile(lat, 50)))
		p99s = append(p99s, ms(percentile(lat, 99)))
		rates = append(rates, float64(n)/total.Seconds())
		coreCPU = append(coreCPU, ms(cpu1-cpu0)/calls)
		rendCPU = append(rendCPU, ms(rend1-rend0)/calls)
		otherCPU = append(otherCPU, ms(other1-other0)/calls)
		tasks = append(tasks, (task1-task0)*1000/calls)
		scripts = append(scripts, (script1-script0)*1000/calls)
		msgs = append(msgs, float64(msgs1-msgs0)/calls)
		frames = append(frames, float64(frames1-frames0)/calls)
	}
	how := fmt.Sprintf("%d calls × %d runs, median of runs", n, cfg.runs)
	r.add(figure{name: "one connection p50", value: median(p50s), unit: "ms", target: 1, how: how})
	r.add(figure{name: "one connection p99", value: median(p99s), unit: "ms", target: 3, how: how})
	r.add(figure{name: "one connection calls/s", value: median(rates), unit: "calls/s", target: math.NaN(), higher: true, how: how})
	r.add(figure{name: "Core CPU per call", value: median(coreCPU), unit: "ms", target: 0.15,
		how: "utime+stime of serve from /proc/<pid>/stat over the one-connection runs ÷ calls"})
	r.add(figure{name: "SDK (renderer) CPU per call", value: median(rendCPU), unit: "ms", target: 0.3,
		how: "utime+stime of Chromium's renderer processes ÷ calls"})
	r.add(figure{name: "page main thread per call", value: median(tasks), unit: "ms", target: math.NaN(),
		how: fmt.Sprintf("Performance.getMetrics TaskDuration ÷ calls (ScriptDuration %.3f ms)", median(scripts))})
	r.add(figure{name: "rest of Chromium CPU per call", value: median(otherCPU), unit: "ms", target: math.NaN(),
		how: "browser + network service + GPU processes: the WebSocket bytes' way"})
	r.add(figure{name: "messages Core sends the page per call", value: median(msgs), unit: "msgs", target: math.NaN(),
		how: fmt.Sprintf("Core's own count (%s) over the one-connection runs ÷ calls; %.2f frames in them", runtime.DebugPath, median(frames))})

	var eight []float64
	d := time.Duration(cfg.n(5, 2)) * time.Second
	for run := range cfg.runs {
		logf("8 callers for %s (run %d/%d)", d, run+1, cfg.runs)
		rate, err := concurrent(agent, argsOfSize(16), 8, d)
		if err != nil {
			return err
		}
		eight = append(eight, rate)
	}
	r.add(figure{name: "8 callers into one session", value: median(eight), unit: "calls/s", target: 5000, higher: true,
		how: fmt.Sprintf("8 keep-alive connections for %s × %d runs, median", d, cfg.runs)})
	return ctx.Err()
}

// measureGrowth: latency by argument size, throughput by callers, latency
// with 1,000 idle sessions beside the busy one.
func measureGrowth(ctx context.Context, cfg config, r *report, core *coreProc, agent agentEnv) error {
	n := cfg.n(400, 100)
	for _, size := range []int{16, 1 << 10, 10 << 10, 100 << 10} {
		logf("argument/result size %d B", size)
		lat, _, err := sequential(agent, argsOfSize(size), n)
		if err != nil {
			return err
		}
		r.bySize = append(r.bySize, []string{sizeText(size), num(ms(percentile(lat, 50))), num(ms(percentile(lat, 99)))})
	}
	d := time.Duration(cfg.n(3, 1)) * time.Second
	for _, k := range []int{1, 2, 4, 8, 16} {
		logf("%d callers", k)
		rate, err := concurrent(agent, argsOfSize(16), k, d)
		if err != nil {
			return err
		}
		r.byCallers = append(r.byCallers, []string{fmt.Sprint(k), num(rate)})
	}
	lat, _, err := sequential(agent, argsOfSize(16), n)
	if err != nil {
		return err
	}
	r.bySessions = append(r.bySessions, []string{"1", num(ms(percentile(lat, 50))), num(ms(percentile(lat, 99)))})
	logf("adding 1,000 idle sessions of 3 tools beside the busy one")
	if _, err := growRSS(ctx, core, 3, []int{1000}); err != nil {
		return err
	}
	lat, _, err = sequential(agent, argsOfSize(16), n)
	if err != nil {
		return err
	}
	r.bySessions = append(r.bySessions, []string{"1 + 1,000 idle", num(ms(percentile(lat, 50))), num(ms(percentile(lat, 99)))})
	return ctx.Err()
}

func sizeText(n int) string {
	if n >= 1<<10 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// measureMemory: fresh Cores, so nothing else sits in their heaps.
func measureMemory(ctx context.Context, cfg config, r *report, pedelec, dir string, env []string) error {
	logf("memory: 1,000 idle sessions of 3 tools")
	core, _, err := startServe(ctx, pedelec, dir, nil, env)
	if err != nil {
		return err
	}
	steps, err := growRSS(ctx, core, 3, []int{250, 500, 1000})
	core.stop()
	if err != nil {
		return err
	}
	last := steps[len(steps)-1]
	r.add(figure{name: "1,000 idle sessions × 3 tools", value: float64(last.rss-steps[0].rss) / (1 << 20), unit: "MB", target: 20,
		how: fmt.Sprintf("Core RSS growth (VmRSS) from %.1f MB with no session", float64(steps[0].rss)/(1<<20))})
	for _, s := range steps[1:] {
		r.memSessions = append(r.memSessions, []string{fmt.Sprint(s.sessions), num(float64(s.rss-steps[0].rss) / (1 << 20)), num(float64(s.rss-steps[0].rss) / float64(s.sessions) / 1024)})
	}

	perSession := cfg.n(500, 200)
	sessions := []int{5, 10, 20}
	logf("memory: %d sessions × %d tools", sessions[len(sessions)-1], perSession)
	core, _, err = startServe(ctx, pedelec, dir, nil, env)
	if err != nil {
		return err
	}
	steps, err = growRSS(ctx, core, perSession, sessions)
	core.stop()
	if err != nil {
		return err
	}
	last = steps[len(steps)-1]
	tools := last.sessions * perSession
	r.add(figure{name: "Core RSS per declared tool", value: float64(last.rss-steps[0].rss) / float64(tools) / 1024, unit: "KB", target: 1,
		how: fmt.Sprintf("RSS growth over %d sessions × %d create_card-like tools ÷ %d tools", last.sessions, perSession, tools)})
	for _, s := range steps[1:] {
		n := s.sessions * perSession
		r.memTools = append(r.memTools, []string{fmt.Sprint(n), num(float64(s.rss-steps[0].rss) / (1 << 20)), num(float64(s.rss-steps[0].rss) / float64(n) / 1024)})
	}
	return ctx.Err()
}
