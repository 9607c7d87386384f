package provider

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
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
// started dies with it: when the leader exits, the group is killed and any
// process still carrying the session's tag is swept, so a grandchild (a
// shell the agent spawned, even one that left the group) never outlives the
// turn, and never holds the output open.
type Process struct {
	cmd    *exec.Cmd
	stdout *os.File
	stderr *tailBuffer
	errR   *os.File
	// errDone is closed when stderr is copied to its end (EOF, or the pipe
	// closed drainDelay after the exit), so Stderr after Wait sees it all.
	errDone chan struct{}
	done    chan struct{} // closed after the leader exited and the group was killed
	err     error
	tag     string // the PEDELEC_THREAD_ID=… entry of its environment, if any
}

// drainDelay bounds how long output is still read after the leader exited
// and its group was killed: a process outside the group and without the tag
// could otherwise hold the pipe open forever.
const drainDelay = 2 * time.Second

// startProcess starts spec in a new process group and stops it when ctx is
// cancelled: StopSignal to the group, then SIGKILL after the grace period.
func startProcess(ctx context.Context, spec ProcessSpec) (*Process, error) {
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	setProcessGroup(cmd)
	cmd.Stdin = strings.NewReader(spec.Stdin)
	// Pipes of our own (not StdoutPipe): cmd.Wait then returns when the
	// leader exits, without waiting for whoever else holds the write ends.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	p := &Process{cmd: cmd, stdout: outR, errR: errR, stderr: &tailBuffer{max: 64 << 10}, errDone: make(chan struct{}), done: make(chan struct{}), tag: threadTag(spec.Env)}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	go func() {
		_, _ = io.Copy(p.stderr, errR)
		close(p.errDone)
	}()
	go func() {
		p.err = cmd.Wait()
		reapLeftovers(cmd, p.tag)
		close(p.done)
		time.AfterFunc(drainDelay, func() {
			outR.Close()
			errR.Close()
		})
	}()
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
	if err := sc.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

// Wait waits for the process to exit and for its group (and anything that
// still carries its session tag) to be killed. It returns the exit error (an
// *exec.ExitError for a non-zero exit).
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// leftoverGrace is how long what the leader left running gets to exit on
// SIGTERM before SIGKILL: long enough for a shell's EXIT trap to release a
// lock (pyenv's rehash lock, say) on a loaded machine, short enough not to
// hold the turn up. It is waited only while something is still running.
const leftoverGrace = time.Second

// reapLeftovers stops what is left of the group and anything else carrying
// the session tag: one SIGTERM each, a short grace, then SIGKILL.
func reapLeftovers(cmd *exec.Cmd, tag string) {
	signalGroup(cmd, syscall.SIGTERM)
	termTaggedOutside(tag, cmd.Process.Pid)
	deadline := time.Now().Add(leftoverGrace)
	for time.Now().Before(deadline) && (groupAlive(cmd) || len(taggedPIDs(tag)) > 0) {
		time.Sleep(20 * time.Millisecond)
	}
	signalGroup(cmd, syscall.SIGKILL)
	sweepTagged(tag)
}

// threadTag is the last PEDELEC_THREAD_ID entry of env: every process of a
// session's turn inherits it, which is how leftovers are found.
func threadTag(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if strings.HasPrefix(env[i], wire.EnvThreadID+"=") {
			return env[i]
		}
	}
	return ""
}

// ExitCode is the exit code after Wait, or -1 when killed by a signal.
func (p *Process) ExitCode() int {
	if p.cmd.ProcessState == nil {
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// Stderr is the last 64 KiB the process wrote to stderr. After Wait it is
// complete: it waits for the copier to reach the end of the pipe (at most
// drainDelay, when something that outlived the group still holds it).
func (p *Process) Stderr() string {
	select {
	case <-p.done:
		<-p.errDone
	default:
	}
	return p.stderr.String()
}

// isExitError reports whether err is a plain non-zero exit.
func isExitError(err error) bool {
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
