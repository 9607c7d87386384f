package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// What every adapter that runs a child process per turn shares (the CLI
// agents of cli_agent.go and script): finding a program and its version,
// its environment, running it line by line, and judging how it stopped.

// cliProgram finds an agent CLI and remembers its version per path, so that
// Check stays cheap on every list_providers.
type cliProgram struct {
	name     string            // provider name, for messages
	command  string            // the program's name on PATH
	envVar   string            // an environment override of the path
	explicit string            // Settings.Executable
	env      map[string]string // Settings.Env, also for --version
	// native maps a found path to the program to run (Codex: the npm Node
	// wrapper to its native binary). Nil means the path itself.
	native func(path string) (string, error)
	// npmPackage names the npm package whose package.json gives the version.
	npmPackage string

	mu       sync.Mutex
	versions map[string]string
}

// find returns the program to run, or why there is none.
func (p *cliProgram) find() (string, error) {
	path, source := p.explicit, "the configured executable"
	if path == "" && p.envVar != "" {
		path, source = os.Getenv(p.envVar), p.envVar
	}
	if path == "" {
		found, err := exec.LookPath(p.command)
		if err != nil {
			return "", fmt.Errorf("%s not found on PATH (install it, or set %s or the executable in the config file)", p.command, p.envVar)
		}
		path = found
	} else if found, err := exec.LookPath(path); err != nil {
		return "", fmt.Errorf("%s (from %s) is not an executable: %w", path, source, err)
	} else {
		path = found
	}
	if p.native != nil {
		return p.native(path)
	}
	return path, nil
}

// versionNumber is compiled when first needed, not in every process's init.
var versionNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+\.\d+\.\d+[0-9A-Za-z.+-]*`) })

// version runs `<path> --version` once per path.
func (p *cliProgram) version(ctx context.Context, path string) (string, error) {
	p.mu.Lock()
	v, ok := p.versions[path]
	p.mu.Unlock()
	if ok {
		return v, nil
	}
	if p.npmPackage != "" {
		if v := npmVersion(path, p.npmPackage); v != "" {
			p.mu.Lock()
			if p.versions == nil {
				p.versions = map[string]string{}
			}
			p.versions[path] = v
			p.mu.Unlock()
			return v, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = cliEnv(append(os.Environ(), "DISABLE_AUTOUPDATER=1"), p.env)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version failed: %w", path, err)
	}
	v = strings.TrimSpace(string(out))
	if m := versionNumber().FindString(v); m != "" {
		v = m
	}
	p.mu.Lock()
	if p.versions == nil {
		p.versions = map[string]string{}
	}
	p.versions[path] = v
	p.mu.Unlock()
	return v, nil
}

// check is Provider.Check for a CLI.
func (p *cliProgram) check(ctx context.Context, description string) wire.ProviderInfo {
	info := wire.ProviderInfo{Name: p.name, Description: description}
	path, err := p.find()
	if err != nil {
		info.Reason = err.Error()
		return info
	}
	info.Path = path
	v, err := p.version(ctx, path)
	if err != nil {
		info.Reason = err.Error()
		return info
	}
	info.Version = v
	info.Available = true
	return info
}

// cliEnv is base with extra's entries set (replacing the same keys), in a
// stable order.
func cliEnv(base []string, extra map[string]string) []string {
	if len(extra) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, replaced := extra[k]; !replaced {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}

// cliRun is one finished CLI process.
type cliRun struct {
	exitCode int
	stderr   string
	err      error // start or read failure, not the exit status
}

// runCLI starts spec, feeds every stdout line to handle, and waits. The
// process group is stopped when ctx is done (startProcess).
func runCLI(ctx context.Context, spec ProcessSpec, handle func(line []byte)) cliRun {
	p, err := startProcess(ctx, spec)
	if err != nil {
		return cliRun{exitCode: -1, err: err}
	}
	readErr := p.Lines(handle)
	waitErr := p.Wait()
	run := cliRun{exitCode: p.ExitCode(), stderr: p.Stderr(), err: readErr}
	if waitErr != nil && !isExitError(waitErr) && run.err == nil {
		run.err = waitErr
	}
	return run
}

// stoppedTurn is the outcome of a turn whose ctx ended: PROVIDER_TIMEOUT for
// a deadline, else the cancel cause (Core may cancel with a *wire.Error).
func stoppedTurn(ctx context.Context, name string) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, context.DeadlineExceeded) {
		return wire.Errorf(wire.CodeProviderTimeout, "%s: the turn did not finish before its deadline", name)
	}
	return fmt.Errorf("%s: turn stopped: %w", name, cause)
}

// stderrTail is the last few non-empty lines of a CLI's stderr, for an
// error message when the CLI printed nothing better.
func stderrTail(stderr string, lines int) string {
	var keep []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > lines {
		keep = keep[len(keep)-lines:]
	}
	s := strings.Join(keep, "\n")
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}

// exitDetails are the Details of a PROVIDER_ERROR from a CLI.
func exitDetails(run cliRun) map[string]any {
	d := map[string]any{"exitCode": run.exitCode}
	if t := stderrTail(run.stderr, 10); t != "" {
		d["stderr"] = t
	}
	return d
}
