package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The native adapters' early start. A CLI that runs one process per turn
// (codex exec, claude -p, and the acp = false forms) cannot start before
// the prompt exists, but what does not depend on the prompt is done at
// createSession (and resumeSession, and a restarted Core's restore), in
// the background: the session's config files (the spec's prepare: Gemini's
// policy and settings, opencode's config, Copilot's home), a run of the
// program (`--version`: it proves the binary starts, and leaves its pages
// in the page cache for the first turn: codex and claude are 100-400 MB
// native binaries), and a dial of the model server when it is on
// loopback. A failure is reported on the session before any turn, as an
// ACP agent's failed start is; the first turn runs regardless. The probe
// carries no session tag, so its end sweeps nothing of a turn's.

// cliProbeWait bounds the probe's run of the program.
const cliProbeWait = 30 * time.Second

// cliProbes are a cliAgent's probes under way, by session, so that
// CloseSession can stop one and wait for it.
type cliProbes struct {
	mu      sync.Mutex
	running map[string]*cliProbe
}

type cliProbe struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (c *cliAgent) StartEarly(turn *Turn, lastActive time.Time, failed func(error)) bool {
	if c.settings.EarlyStart != nil && !*c.settings.EarlyStart {
		return false
	}
	if time.Since(lastActive) > DefaultACPIdle {
		return false // a restarted Core's long-idle session: its next turn will do
	}
	c.probes.mu.Lock()
	if c.probes.running == nil {
		c.probes.running = map[string]*cliProbe{}
	}
	if c.probes.running[turn.SessionID] != nil {
		c.probes.mu.Unlock()
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), cliProbeWait)
	p := &cliProbe{cancel: cancel, done: make(chan struct{})}
	c.probes.running[turn.SessionID] = p
	c.probes.mu.Unlock()
	go func() {
		defer close(p.done)
		defer cancel()
		err := c.probe(ctx, turn)
		c.probes.mu.Lock()
		delete(c.probes.running, turn.SessionID)
		c.probes.mu.Unlock()
		if err != nil && ctx.Err() != context.Canceled {
			failed(err)
		}
	}()
	return true
}

// CloseSession stops the session's probe, if one runs, and returns once
// its process is gone. A turn does the same before it starts: the turn
// proves what the probe would, and must not read a config file the probe
// is writing.
func (c *cliAgent) CloseSession(sessionID string) {
	c.probes.mu.Lock()
	p := c.probes.running[sessionID]
	c.probes.mu.Unlock()
	if p != nil {
		p.cancel()
		<-p.done
	}
}

// probe does the prompt-independent part of a first turn.
func (c *cliAgent) probe(ctx context.Context, turn *Turn) error {
	name := c.spec.name
	path, err := c.program.find()
	if err != nil {
		return wire.Errorf(wire.CodeProviderUnavailable, "%s: %w", name, err)
	}
	env := cliEnv(untagged(turn.Env), map[string]string{"PWD": turn.WorkDir})
	if c.spec.prepare != nil {
		extra, err := c.spec.prepare(c.cliArgs(turn))
		if err != nil {
			return wire.Errorf(wire.CodeProviderError, "%s: preparing the session: %v", name, err)
		}
		env = cliEnv(env, extra)
	}
	env = cliEnv(env, c.settings.Env)
	run := runCLI(ctx, ProcessSpec{Path: path, Args: []string{"--version"}, Dir: turn.WorkDir, Env: env, StopSignal: c.spec.stopSignal, Grace: time.Second}, func([]byte) {})
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return wire.Errorf(wire.CodeProviderUnavailable, "%s: %s --version did not answer within %s", name, path, cliProbeWait).
			WithDetails(map[string]any{"path": path})
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if run.err != nil || run.exitCode != 0 {
		d := exitDetails(run)
		d["path"] = path
		msg := fmt.Sprintf("%s: %s --version failed (exit %d)", name, path, run.exitCode)
		if run.err != nil {
			msg = fmt.Sprintf("%s: %s --version failed: %v", name, path, run.err)
		}
		return wire.Errorf(wire.CodeProviderUnavailable, "%s", msg).WithDetails(d)
	}
	endpoint := c.settings.BaseURL
	if c.spec.endpoint != nil {
		endpoint = c.spec.endpoint(c.cliArgs(turn), envMap(env))
	}
	return dialLoopback(ctx, name, endpoint)
}

// untagged is env without the session's process tag.
func untagged(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, wire.EnvThreadID+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// dialLoopback checks that a model server on loopback accepts a
// connection. A remote one is not dialled: starting a session never waits
// on the network (the same rule as the openai provider's listing).
func dialLoopback(ctx context.Context, name, endpoint string) error {
	if !isLoopbackURL(endpoint) {
		return nil
	}
	u, _ := url.Parse(endpoint) // isLoopbackURL parsed it
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[u.Scheme]
		if port == "" {
			port = "80"
		}
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		return wire.Errorf(wire.CodeProviderError, "%s: the model server at %s does not answer: %v", name, endpoint, err).
			WithDetails(map[string]any{"endpoint": endpoint})
	}
	return conn.Close()
}
