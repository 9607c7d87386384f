package provider

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func tagEnv(t *testing.T) (string, []string) {
	tag := "PEDELEC_THREAD_ID=proc-test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	return tag, append(os.Environ(), tag)
}

// A grandchild that leaves the process group (setsid) still dies with the
// turn: Wait sweeps every process that carries the session's tag.
func TestWaitKillsEscapedChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the environment sweep reads /proc")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	tag, env := tagEnv(t)
	p, err := startProcess(context.Background(), ProcessSpec{
		Path: "/bin/sh", Args: []string{"-c", "setsid sleep 300 & sleep 300 & echo started; sleep 1"}, Env: env,
	})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Await(t, 5*time.Second, "both sleeps to start", func() bool { return len(testenv.ProcessesWithEnv(tag)) >= 3 })
	// Both sleeps hold stdout open; reading must still end with the leader.
	start := time.Now()
	var out strings.Builder
	p.Lines(func(line []byte) { out.Write(line) })
	p.Wait()
	if took := time.Since(start); took > 5*time.Second || out.String() != "started" {
		t.Errorf("output %q read in %s; want \"started\" soon after the shell exits", out.String(), took)
	}
	if left := testenv.ProcessesWithEnv(tag); len(left) != 0 {
		t.Fatalf("processes left behind: %v", left)
	}
}

// Cancelling the context stops the process group: the stop signal, then
// SIGKILL after the grace period for a child that ignores it.
func TestCancelStopsTheGroup(t *testing.T) {
	tag, env := tagEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	p, err := startProcess(ctx, ProcessSpec{
		Path: "/bin/sh", Args: []string{"-c", "trap '' TERM; sleep 300 & wait"}, Env: env, Grace: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Await(t, 5*time.Second, "the child to start", func() bool { return len(testenv.ProcessesWithEnv(tag)) >= 2 })
	start := time.Now()
	cancel()
	p.Lines(func([]byte) {})
	p.Wait()
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("stopping took %s", took)
	}
	if left := testenv.ProcessesWithEnv(tag); len(left) != 0 {
		t.Fatalf("processes left behind: %v", left)
	}
}

// What the leader leaves running gets SIGTERM and a moment before SIGKILL,
// so a shell's EXIT trap can release a lock (as pyenv's rehash does) instead
// of leaving it stale for every later shell.
func TestLeftoversGetToCleanUp(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	dir := t.TempDir()
	ready, cleaned := dir+"/ready", dir+"/cleaned"
	tag, env := tagEnv(t)
	// The leftover shell sets its trap, starts its child, says it is ready
	// and waits; the leader exits once it is. Ready only once the child
	// runs: bash notices a SIGTERM only when its wait returns, so one that
	// came before the child existed would leave it waiting 300 s.
	// The trap takes a while, as pyenv's does (it runs rm): a second
	// SIGTERM while it runs kills bash on the spot, so each leftover must
	// get exactly one.
	script := `bash -c 'trap "sleep 0.3; echo done > ` + cleaned + `" EXIT; sleep 300 & : > ` + ready + `; wait' & ` +
		`while [ ! -e ` + ready + ` ]; do sleep 0.05; done`
	p, err := startProcess(context.Background(), ProcessSpec{Path: "/bin/sh", Args: []string{"-c", script}, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	p.Lines(func([]byte) {})
	p.Wait()
	if _, err := os.Stat(cleaned); err != nil {
		t.Fatal("the leftover shell was killed before its EXIT trap ran")
	}
	if left := testenv.ProcessesWithEnv(tag); len(left) != 0 {
		t.Fatalf("processes left behind: %v", left)
	}
}
