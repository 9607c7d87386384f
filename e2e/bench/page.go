package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
)

// page is headless Chromium with one tab that imported the SDK from Core
// and holds one session whose tool, bench_echo, answers with its arguments.
type page struct {
	ctx        context.Context
	cancel     func()
	browserPID int
	sessionID  string
}

// pageScript imports the SDK Core serves, declares the trivial tool and
// starts a turn (on the hold agent, which keeps it running), so the
// agent endpoint accepts calls. Only public SDK API is used.
const pageScript = `(async () => {
  const { Pedelec } = await import(%q);
  const pedelec = new Pedelec();
  const tools = [{
    name: "bench_echo",
    description: "Answer with the arguments, unchanged.",
    argsSchema: { type: "object", properties: { n: { type: "integer" }, pad: { type: "string" } }, required: [] },
    handler: (args) => args,
  }];
  const session = await pedelec.createSession({ provider: "script", skills: { guidance: "Benchmark.", tools } });
  window.benchTurn = session.sendText("hold the turn open").catch((e) => ({ error: String(e) }));
  window.benchSession = session;
  return session.sessionId;
})()`

// openPage starts Chromium with the project's flags and a fresh profile,
// opens a page on Core's origin (so no --allow-origin is needed) and runs
// pageScript there.
func openPage(chromium, coreURL, dir string) (*page, error) {
	profile, err := os.MkdirTemp(dir, "chromium-")
	if err != nil {
		return nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	p := &page{ctx: ctx, cancel: func() { cancelCtx(); cancelAlloc() }}
	if err := chromedp.Do(ctx); err != nil { // starts the browser; no timeout on this context
		p.cancel()
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	if proc := chromedp.FromContext(ctx).Browser.Process(); proc != nil {
		p.browserPID = proc.Pid
	}
	if err := p.do(30*time.Second, chromedp.Navigate(coreURL+"/healthz")); err != nil {
		p.cancel()
		return nil, fmt.Errorf("open %s: %w", coreURL, err)
	}
	if _, err := chromedp.Call(ctx, performance.Enable, performance.EnableParams{}); err != nil {
		p.cancel()
		return nil, fmt.Errorf("enable the performance domain: %w", err)
	}
	raw, err := p.eval(60*time.Second, fmt.Sprintf(pageScript, coreURL+"/sdk/pedelec.js"))
	if err != nil {
		p.cancel()
		return nil, fmt.Errorf("page script: %w", err)
	}
	if err := json.Unmarshal(raw, &p.sessionID); err != nil || !strings.HasPrefix(p.sessionID, "s_") {
		p.cancel()
		return nil, fmt.Errorf("page script returned %s", raw)
	}
	// chromedp turns on DevTools domains a user's page does not have: with
	// Network on, the renderer copies every WebSocket message into an
	// event for the bench, which counted as the SDK's CPU. Only Runtime
	// (to evaluate) and Performance (the metrics) stay on.
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	for _, disable := range []cdp.Command[cdp.Empty, cdp.Empty]{network.Disable, log.Disable, css.Disable, dom.Disable} {
		if _, err := chromedp.Call(ctx, disable, cdp.Empty{}); err != nil {
			p.cancel()
			return nil, fmt.Errorf("%s: %w", disable.Method, err)
		}
	}
	return p, nil
}

func (p *page) do(timeout time.Duration, steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	return chromedp.Do(ctx, steps...)
}

func (p *page) eval(timeout time.Duration, expr string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
}

// metrics returns the page's Performance.getMetrics durations in seconds:
// TaskDuration (all main-thread tasks) and ScriptDuration (JavaScript).
func (p *page) metrics() (task, script float64, err error) {
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	res, err := chromedp.Call(ctx, performance.GetMetrics, struct{}{})
	if err != nil {
		return 0, 0, err
	}
	for _, m := range res.Metrics {
		switch m.Name {
		case "TaskDuration":
			task = m.Value
		case "ScriptDuration":
			script = m.Value
		}
	}
	return task, script, nil
}

// rendererPIDs are Chromium's renderer processes (the page's and any spare).
func (p *page) rendererPIDs() []int { return descendants(p.browserPID, "--type=renderer") }

// otherPIDs are the browser process and its other helpers (network
// service, GPU), which carry the WebSocket bytes between Core and the page.
func (p *page) otherPIDs() []int {
	out := []int{p.browserPID}
	for _, pid := range descendants(p.browserPID, "") {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if !strings.Contains(string(cmdline), "--type=renderer") {
			out = append(out, pid)
		}
	}
	return out
}

func sumCPU(pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		if d, err := procCPU(pid); err == nil {
			total += d
		}
	}
	return total
}

// startProfile starts V8's sampling profiler in the page, every 100 µs.
func (p *page) startProfile() error {
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, profiler.Enable, cdp.Empty{}); err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 100}); err != nil {
		return err
	}
	_, err := chromedp.Call(ctx, profiler.Start, cdp.Empty{})
	return err
}

// stopProfile stops it and writes the profile to file.
func (p *page) stopProfile(file string) error {
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	res, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{})
	if err != nil {
		return err
	}
	data, err := json.Marshal(res.Profile)
	if err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, profiler.Disable, cdp.Empty{}); err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}

func (p *page) close() { p.cancel() }

// holdAgent is the provider process the bench configures for the script
// provider: it records the session's environment for the bench (which then
// calls tools as the agent) and keeps the turn running until Core ends it.
const holdAgent = `#!/bin/sh
printf '%s\n%s\n%s\n%s\n' "$PEDELEC_CORE_URL" "$PEDELEC_AGENT_SECRET" "$PEDELEC_THREAD_ID" "$PEDELEC_CORE_KEY" > "$BENCH_AGENT_FILE.tmp"
mv "$BENCH_AGENT_FILE.tmp" "$BENCH_AGENT_FILE"
exec sleep 3600
`

// agentEnv is what the hold agent saw: what `pedelec tool-call` needs.
type agentEnv struct{ coreURL, secret, threadID, coreKey string }

func (a agentEnv) environ() []string {
	return append(os.Environ(), "PEDELEC_CORE_URL="+a.coreURL, "PEDELEC_AGENT_SECRET="+a.secret, "PEDELEC_THREAD_ID="+a.threadID, "PEDELEC_CORE_KEY="+a.coreKey)
}

// writeHoldAgent writes the agent (its variable has no PEDELEC_ prefix:
// Core does not pass those on to provider processes) and a config that makes it the script
// provider's executable; it returns the env entries serve needs.
func writeHoldAgent(dir string) (env []string, agentFile string, err error) {
	agent := filepath.Join(dir, "hold-agent.sh")
	if err := os.WriteFile(agent, []byte(holdAgent), 0o755); err != nil {
		return nil, "", err
	}
	config := fmt.Sprintf("[providers.script]\nexecutable = %q\n", agent)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(config), 0o644); err != nil {
		return nil, "", err
	}
	agentFile = filepath.Join(dir, "agent.env")
	return []string{"BENCH_AGENT_FILE=" + agentFile}, agentFile, nil
}

func waitAgentFile(path string, timeout time.Duration) (agentEnv, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(path)
		if err == nil {
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) == 4 {
				return agentEnv{lines[0], lines[1], lines[2], lines[3]}, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return agentEnv{}, fmt.Errorf("the hold agent did not start within %s", timeout)
}
