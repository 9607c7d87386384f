package provider

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// acpProcess is a warm ACP agent: one child in its own process group whose
// stdin and stdout stay open for the whole session (the ACP connection),
// unlike startProcess's one-shot children. Stopping it is the same as for a
// turn's CLI: SIGTERM to the group, SIGKILL after a grace, and a sweep for
// anything that left the group but still carries the session's tag (qwen's
// MCP children do). Closing stdin is not enough: gemini, claude-agent-acp
// and codex-acp keep running on EOF (FACTS-acp §1).
type acpProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	stderr *tailBuffer
	tag    string
	exited chan struct{} // closed when the leader exited
	once   sync.Once
	gone   chan struct{} // closed when stop finished
}

// startACPProcess starts path args in dir with env, its stdin and stdout
// the ACP pipes.
func startACPProcess(path string, args []string, dir string, env []string) (*acpProcess, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = env
	setProcessGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	p := &acpProcess{cmd: cmd, stdin: inW, stdout: outR, stderr: &tailBuffer{max: 64 << 10},
		tag: threadTag(env), exited: make(chan struct{}), gone: make(chan struct{})}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	go func() {
		_, _ = io.Copy(p.stderr, errR)
		errR.Close()
	}()
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop ends the agent and everything it started, and waits for that. It
// may be called any number of times, from any goroutine.
func (p *acpProcess) stop() {
	p.once.Do(func() {
		p.stdin.Close()
		reapLeftovers(p.cmd, p.tag) // SIGTERM the group, a grace, SIGKILL, sweep the tag
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
		}
		// The reader goroutine of the ACP connection ends on this.
		p.stdout.Close()
		close(p.gone)
	})
	<-p.gone
}

// exitStatus describes how the agent ended, for an error message.
func (p *acpProcess) exitStatus() map[string]any {
	d := map[string]any{}
	select {
	case <-p.exited:
		if ps := p.cmd.ProcessState; ps != nil {
			d["exitCode"] = ps.ExitCode()
			d["status"] = ps.String()
		}
	default:
	}
	if t := stderrTail(p.stderr.String(), 10); t != "" {
		d["stderr"] = t
	}
	return d
}

// Pid is the agent's process (and group) id.
func (p *acpProcess) Pid() int { return p.cmd.Process.Pid }
