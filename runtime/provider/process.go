package provider

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ProcessSpec describes one provider child process.
type ProcessSpec struct {
	Path  string
	Args  []string
	Dir   string
	Env   []string
	Stdin string // written then closed; the prompt, for CLIs that read it
	// StopSignal is sent to the whole process group when the turn is
	// cancelled: Codex needs SIGINT (it kills its own children on it).
	// Zero means SIGTERM.
	StopSignal syscall.Signal
	// Grace is how long to wait after StopSignal before SIGKILL. Zero means 2s.
	Grace time.Duration
}

// Process is a running child in its own process group. Everything it
// started dies with it: Wait kills the group after the leader exits, so a
// grandchild (a shell the agent spawned) never outlives the turn.
type Process struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	stderr *tailBuffer
	done   chan struct{}
	err    error
	once   sync.Once
}

// StartProcess starts spec in a new process group and stops it when ctx is
// cancelled: StopSignal to the group, then SIGKILL after the grace period.
func StartProcess(ctx context.Context, spec ProcessSpec) (*Process, error) {
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	setProcessGroup(cmd)
	cmd.Stdin = strings.NewReader(spec.Stdin)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, stdout: stdout, stderr: &tailBuffer{max: 64 << 10}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	stop := spec.StopSignal
	if stop == 0 {
		stop = syscall.SIGTERM
	}
	grace := spec.Grace
	if grace == 0 {
		grace = 2 * time.Second
	}
	go func() {
		select {
		case <-p.done:
		case <-ctx.Done():
			signalGroup(cmd, stop)
			select {
			case <-p.done:
			case <-time.After(grace):
				signalGroup(cmd, syscall.SIGKILL)
			}
		}
	}()
	return p, nil
}

// Lines calls fn for each line of stdout until EOF. Lines may be long (a
// JSON event with a whole command output), so the buffer grows to 16 MiB.
func (p *Process) Lines(fn func(line []byte)) error {
	sc := bufio.NewScanner(p.stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	return sc.Err()
}

// Wait waits for the process to exit, then kills what is left of its group.
// It returns the exit error (an *exec.ExitError for a non-zero exit).
func (p *Process) Wait() error {
	p.once.Do(func() {
		p.err = p.cmd.Wait()
		signalGroup(p.cmd, syscall.SIGKILL)
		close(p.done)
	})
	return p.err
}

// ExitCode is the exit code after Wait, or -1 when killed by a signal.
func (p *Process) ExitCode() int {
	if p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// Stderr is the last 64 KiB the process wrote to stderr.
func (p *Process) Stderr() string { return p.stderr.String() }

// Pid is the process (and process group) id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// IsExitError reports whether err is a plain non-zero exit.
func IsExitError(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
