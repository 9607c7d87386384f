package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// timeRun runs one process to completion and returns its wall time, from
// fork/exec to exit, the way an agent's shell experiences it.
func timeRun(path string, args []string, env []string) (time.Duration, []byte, error) {
	d, _, _, out, err := timeRunCPU(path, args, env)
	return d, out, err
}

// timeRunCPU also returns the CPU time (user+system) the process used,
// which a loaded machine disturbs much less than wall time, and its minor
// page faults, which it hardly disturbs at all (and which cost a process
// most of its start-up on a VM: pages of the binary, heap, stacks).
func timeRunCPU(path string, args []string, env []string) (wall, cpu time.Duration, faults int64, out []byte, err error) {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			faults = ru.Minflt
		}
	}
	return wall, cpu, faults, stdout.Bytes(), err
}

// initTrace runs the binary with GODEBUG=inittrace=1 and returns the sum of
// every package's init clock time, and the three most expensive packages.
// Each package's own time is also folded into least (its smallest so far).
func initTrace(path string, args []string, env []string, least map[string]float64) (float64, []string, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = append(env, "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // the command may fail (no session); init ran anyway
	re := regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock`)
	total := 0.0
	type pkg struct {
		name string
		ms   float64
	}
	var top []pkg
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		total += v
		if old, ok := least[m[1]]; !ok || v < old {
			least[m[1]] = v
		}
		top = append(top, pkg{m[1], v})
	}
	if len(top) == 0 {
		return 0, nil, fmt.Errorf("no inittrace output from %s %v", path, args)
	}
	for i := range top { // partial selection sort: three largest
		for j := i + 1; j < len(top); j++ {
			if top[j].ms > top[i].ms {
				top[i], top[j] = top[j], top[i]
			}
		}
		if i == 2 {
			break
		}
	}
	var names []string
	for _, p := range top[:min(3, len(top))] {
		names = append(names, fmt.Sprintf("%s %.2f ms", p.name, p.ms))
	}
	return total, names, nil
}

// freePort picks a free 127.0.0.1 port.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// coreProc is a running `pedelec serve`.
type coreProc struct {
	cmd      *exec.Cmd
	addr     string
	url      string
	stateDir string
	logs     *bytes.Buffer
}

// pageWrites reads from Core's debug endpoint how many WebSocket messages,
// and frames in them, it has written to pages.
func (p *coreProc) pageWrites() (messages, frames int64, err error) {
	token, err := os.ReadFile(filepath.Join(p.stateDir, wire.CoreTokenFile))
	if err != nil {
		return 0, 0, err
	}
	req, _ := http.NewRequest(http.MethodGet, p.url+runtime.DebugPath, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	var c runtime.DebugCounts
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		return 0, 0, fmt.Errorf("debug counts: HTTP %d: %w", resp.StatusCode, err)
	}
	return c.PageMessages, c.PageFrames, nil
}

// serveEnv is the environment serve runs with: no user config file, a
// private state dir, and extra entries (the bench agent's file).
func serveEnv(dir string, extra ...string) []string {
	env := append(os.Environ(), "PEDELEC_CONFIG="+filepath.Join(dir, "config.toml"), "PEDELEC_LOG_LEVEL=warn")
	return append(env, extra...)
}

// capacityFlags lift the limits that guard a shared machine (issue 8):
// the bench measures what 1,000 sessions on one connection and 500 tools
// a session cost, which the defaults refuse.
var capacityFlags = []string{"--max-sessions-per-connection", "5000", "--max-sessions", "5000", "--max-tools", "1000"}

// startServe starts serve on a free port and returns once /healthz answers,
// with the time from exec to that first answer.
func startServe(ctx context.Context, bin, dir string, args []string, env []string) (*coreProc, time.Duration, error) {
	addr, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	stateDir, err := os.MkdirTemp(dir, "state-")
	if err != nil {
		return nil, 0, err
	}
	cmd := exec.Command(bin, append(append([]string{"serve", "--addr", addr, "--state-dir", stateDir}, capacityFlags...), args...)...)
	cmd.Env = env
	logs := &bytes.Buffer{}
	cmd.Stderr = logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &coreProc{cmd: cmd, addr: addr, url: "http://" + addr, stateDir: stateDir, logs: logs}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: time.Second}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	deadline := start.Add(20 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		resp, err := client.Get(p.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, time.Since(start), nil
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	p.stop()
	return nil, 0, fmt.Errorf("serve did not answer /healthz within 20s:\n%s", logs.String())
}

// stop ends serve with SIGTERM (sessions end, provider processes die) and
// waits; after 10 s it kills the process group.
func (p *coreProc) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// procCPU is a process's user+system CPU time so far (all threads), from
// /proc/<pid>/stat, in clock ticks of 10 ms on Linux.
func procCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces: fields start after the last ')'.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	const hz = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / hz, nil
}

// procRSS is a process's resident set in bytes, from /proc/<pid>/status.
func procRSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}

// descendants lists every process below pid whose command line contains
// want ("" for all).
func descendants(pid int, want string) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		ppid, _ := strconv.Atoi(fields[1])
		children[ppid] = append(children[ppid], child)
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c))
			if want == "" || bytes.Contains(cmdline, []byte(want)) {
				out = append(out, c)
			}
			walk(c)
		}
	}
	walk(pid)
	return out
}

// loadAverage is the 1-minute load, to print next to the figures.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}
