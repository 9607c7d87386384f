package provider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// None of these is timed: they assert how many agents started, what a
// turn ran on and which processes are left; deadlines only guard against
// a hang.

// earlyStarts reads the pids the fake agents wrote to the starts file.
func earlyStarts(t *testing.T, path string) []int {
	t.Helper()
	data, _ := os.ReadFile(path)
	var pids []int
	for _, line := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(line)
		if err != nil {
			t.Fatalf("starts file %q", data)
		}
		pids = append(pids, pid)
	}
	return pids
}

func awaitStarts(t *testing.T, path string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if pids := earlyStarts(t, path); len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d agent starts, want %d", len(earlyStarts(t, path)), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A turn sent while the session's agent is still starting (initialize not
// answered yet) waits for that start and runs on its agent: one process,
// one ACP session, the turn its first prompt.
func TestACPTurnDuringEarlyStartRunsOneAgent(t *testing.T) {
	dir := t.TempDir()
	starts, gate := filepath.Join(dir, "starts"), filepath.Join(dir, "gate")
	a := fakeACP(t, map[string]string{fakeACPStartsEnv: starts, fakeACPInitGateEnv: gate})
	turn := fakeTurn(t, t.TempDir(), "s1", "", "recall")
	if !a.StartEarly(turn, time.Now(), func(err error) { t.Errorf("early start failed: %v", err) }) {
		t.Fatal("StartEarly did not start the agent")
	}
	if a.StartEarly(turn, time.Now(), func(error) {}) {
		t.Error("a second StartEarly during the first started another agent")
	}
	pid := awaitStarts(t, starts, 1)[0]
	type outcome struct {
		r   *acpRecorder
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := runACP(t, a, context.Background(), turn)
		done <- outcome{r, err}
	}()
	// The turn is sent with initialize still unanswered; then the agent
	// may go on.
	time.Sleep(50 * time.Millisecond)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var o outcome
	select {
	case o = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the turn never ended")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	if want := "prompts=1 pid=" + strconv.Itoa(pid) + " "; !strings.HasPrefix(o.r.text(), want) {
		t.Errorf("the turn said %q, want %q… (the early agent's first prompt)", o.r.text(), want)
	}
	if got := earlyStarts(t, starts); len(got) != 1 {
		t.Errorf("agents started: %v, want one", got)
	}
	if o.r.thread == "" || a.WarmPID("s1") != pid {
		t.Errorf("thread %q, warm pid %d, want the early agent %d", o.r.thread, a.WarmPID("s1"), pid)
	}
}

// A start that fails is reported (with the agent's stderr) before any
// turn; the first turn then starts the agent once more and runs.
func TestACPEarlyStartFailureReportedThenTurnRetries(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	a := fakeACP(t, map[string]string{fakeACPStartsEnv: starts, fakeACPFailStartsEnv: "1"})
	turn := fakeTurn(t, t.TempDir(), "s1", "", "say hello")
	failed := make(chan error, 1)
	if !a.StartEarly(turn, time.Now(), func(err error) { failed <- err }) {
		t.Fatal("StartEarly did not start the agent")
	}
	var err error
	select {
	case err = <-failed:
	case <-time.After(60 * time.Second):
		t.Fatal("the failed start was not reported")
	}
	if !strings.Contains(wireText(err), "no model configured") {
		t.Errorf("the start's error %q lacks the agent's stderr", wireText(err))
	}
	r, err := runACP(t, a, context.Background(), turn)
	if err != nil {
		t.Fatalf("the first turn after a failed start: %v", err)
	}
	if r.text() != "Hello, world" {
		t.Errorf("the turn said %q", r.text())
	}
	if got := earlyStarts(t, starts); len(got) != 2 {
		t.Errorf("agent starts %v, want two (the early one, the turn's retry)", got)
	}
}

// CloseSession (the page's end()) during the start cancels it and returns
// once its process is gone.
func TestACPCloseDuringEarlyStartLeavesNoProcess(t *testing.T) {
	dir := t.TempDir()
	starts, gate := filepath.Join(dir, "starts"), filepath.Join(dir, "gate")
	a := fakeACP(t, map[string]string{fakeACPStartsEnv: starts, fakeACPInitGateEnv: gate})
	failed := make(chan error, 1)
	a.StartEarly(fakeTurn(t, t.TempDir(), "s1", "", ""), time.Now(), func(err error) { failed <- err })
	pid := awaitStarts(t, starts, 1)[0]
	a.CloseSession("s1")
	if pidAlive(pid) {
		t.Errorf("agent %d still runs after CloseSession returned", pid)
	}
	if a.WarmPID("s1") != 0 {
		t.Error("a warm agent is listed after CloseSession")
	}
	select {
	case err := <-failed:
		t.Errorf("a start cancelled by CloseSession was reported failed: %v", err)
	default:
	}
}

// A session that never sends anything costs one agent for the idle time,
// then none; an early start is skipped where the idle time has passed
// already (a restarted Core's old session) and where early_start = false.
func TestACPEarlyStartBoundedByIdle(t *testing.T) {
	a := fakeACP(t, nil)
	a.idle = 300 * time.Millisecond
	a.StartEarly(fakeTurn(t, t.TempDir(), "s1", "", ""), time.Now(), func(err error) { t.Errorf("start: %v", err) })
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for pid = a.WarmPID("s1"); pid == 0; pid = a.WarmPID("s1") {
		if time.Now().After(deadline) {
			t.Fatal("the early agent never became warm")
		}
		time.Sleep(10 * time.Millisecond)
	}
	waitGone(t, pid)
	for a.WarmPID("s1") != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if a.WarmPID("s1") != 0 {
		t.Error("the idle early agent is still listed")
	}

	if a.StartEarly(fakeTurn(t, t.TempDir(), "s2", "", ""), time.Now().Add(-time.Second), func(error) {}) {
		t.Error("started an agent for a session idle longer than the idle time")
	}
	off := false
	b := NewCustomACP("fake", Settings{Executable: os.Args[0], EarlyStart: &off}).(*acpAgent)
	if b.StartEarly(fakeTurn(t, t.TempDir(), "s3", "", ""), time.Now(), func(error) {}) {
		t.Error("early_start = false started an agent")
	}
}

// wireText is an error's message with its details (the agent's stderr).
func wireText(err error) string {
	if err == nil {
		return ""
	}
	data, _ := json.Marshal(wire.AsError(err))
	return string(data)
}

// What an early start reports (a session/load that fell back to a new
// session, how long the start took) reaches the first turn also when that
// turn comes after the start has ended, as it does after a user's pause.
func TestACPEarlyStartEventsReachALaterTurn(t *testing.T) {
	a := fakeACP(t, map[string]string{fakeACPNoLoadEnv: "1"})
	turn := fakeTurn(t, t.TempDir(), "s1", "fake-gone", "say hello")
	if !a.StartEarly(turn, time.Now(), func(err error) { t.Errorf("start: %v", err) }) {
		t.Fatal("StartEarly did not start the agent")
	}
	deadline := time.Now().Add(30 * time.Second)
	for a.WarmPID("s1") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the early agent never became warm")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var debug []string
	r := &acpRecorder{}
	err := a.RunTurn(context.Background(), turn, func(ev Event) {
		if ev.Debug != "" {
			debug = append(debug, ev.Debug)
		}
		r.emit(ev)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.warns) != 1 || !strings.Contains(r.warns[0], "could not load ACP session fake-gone") {
		t.Errorf("warnings %q, want the fallen-back load's", r.warns)
	}
	if len(debug) != 1 || !strings.Contains(debug[0], "started: initialize after") {
		t.Errorf("debug notes %q, want the start's phases", debug)
	}
	// Once only: the second turn hears neither again.
	r2, err := runACP(t, a, context.Background(), turn)
	if err != nil || len(r2.warns) != 0 {
		t.Errorf("second turn: %v, warnings %q", err, r2.warns)
	}
}
