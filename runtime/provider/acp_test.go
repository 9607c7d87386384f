package provider

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// fakeACP is an ACP provider whose agent is this test binary
// (acp_fake_agent_test.go).
func fakeACP(t *testing.T, extra map[string]string) *acpAgent {
	t.Helper()
	env := map[string]string{fakeACPAgentEnv: "1"}
	for k, v := range extra {
		env[k] = v
	}
	a := NewCustomACP("fake", Settings{Executable: os.Args[0], Env: env}).(*acpAgent)
	t.Cleanup(func() {
		a.mu.Lock()
		ids := make([]string, 0, len(a.warm))
		for id := range a.warm {
			ids = append(ids, id)
		}
		a.mu.Unlock()
		for _, id := range ids {
			a.CloseSession(id)
		}
	})
	return a
}

type acpRecorder struct {
	mu     sync.Mutex
	chat   strings.Builder
	thread string
	warns  []string
}

func (r *acpRecorder) emit(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.chat.WriteString(ev.ChatDelta)
	if ev.ProviderThreadID != "" {
		r.thread = ev.ProviderThreadID
	}
	if ev.Warning != "" {
		r.warns = append(r.warns, ev.Warning)
	}
}

func (r *acpRecorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.chat.String()
}

func fakeTurn(t *testing.T, dir, session, resume, prompt string) *Turn {
	// The process tag (PEDELEC_THREAD_ID) is the test's own: stopping an
	// agent sweeps every process with its tag, and a stop still under way
	// when a test returns must not kill the next test's agent of the same
	// session id. The test process's pid is in it too: the same test run
	// at once by another `go test` on the machine (a -race tier beside a
	// plain one, two checkouts) had the same tag, and each run's sweep
	// SIGTERMed the other's agents ("the agent exited before it answered
	// session/load", about 1 run in 150).
	tag := session + "-" + strconv.Itoa(os.Getpid()) + "-" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	return &Turn{SessionID: session, TurnID: "t", Prompt: prompt, Message: prompt, ResumeID: resume, WorkDir: dir,
		Env: append(os.Environ(), wire.EnvThreadID+"="+tag),
		MCP: &MCPServer{Name: "pedelec", URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"Authorization": "Bearer x"}}}
}

func runACP(t *testing.T, a *acpAgent, ctx context.Context, turn *Turn) (*acpRecorder, error) {
	t.Helper()
	r := &acpRecorder{}
	err := a.RunTurn(ctx, turn, r.emit)
	return r, err
}

// startHangingTurn runs turn (prompt "hang": the fake agent says
// "waiting" and holds the turn) in the background and returns once the
// agent is in it; done gets RunTurn's outcome.
func startHangingTurn(t *testing.T, a *acpAgent, ctx context.Context, turn *Turn) (chan error, *acpRecorder) {
	t.Helper()
	done := make(chan error, 1)
	r := &acpRecorder{}
	go func() { done <- a.RunTurn(ctx, turn, r.emit) }()
	deadline := time.Now().Add(30 * time.Second)
	for r.text() != "waiting" {
		if time.Now().After(deadline) {
			t.Fatal("the agent never started the turn")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return done, r
}

func pidAlive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for pidAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("agent process %d still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A second turn is session/prompt on the same process and ACP session: the
// agent remembers the first; chat streams from agent_message_chunk; the
// agent got the MCP server over HTTP; ending the session ends the process.
func TestACPWarmTurnsKeepProcessAndSession(t *testing.T) {
	a := fakeACP(t, nil)
	dir := t.TempDir()
	r1, err := runACP(t, a, context.Background(), fakeTurn(t, dir, "s1", "", "say hello"))
	if err != nil {
		t.Fatal(err)
	}
	if r1.text() != "Hello, world" || r1.thread == "" {
		t.Fatalf("turn 1: chat %q, thread %q", r1.text(), r1.thread)
	}
	pid := a.WarmPID("s1")
	r2, err := runACP(t, a, context.Background(), fakeTurn(t, dir, "s1", r1.thread, "recall"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "prompts=2 pid="; !strings.HasPrefix(r2.text(), want) || !strings.Contains(r2.text(), "mcp=http:pedelec@http://127.0.0.1:9/mcp") {
		t.Errorf("turn 2 said %q, want %q… on the same session with the HTTP MCP server", r2.text(), want)
	}
	if a.WarmPID("s1") != pid || r2.thread != r1.thread {
		t.Errorf("turn 2 ran on pid %d thread %s, want the warm %d, %s", a.WarmPID("s1"), r2.thread, pid, r1.thread)
	}
	a.CloseSession("s1")
	waitGone(t, pid)
	if a.WarmPID("s1") != 0 {
		t.Errorf("a closed session still has a warm agent")
	}
}

// Permissions are answered by policy: a page tool allowed once, a shell
// command rejected.
func TestACPPermissionsByPolicy(t *testing.T) {
	a := fakeACP(t, nil)
	r, err := runACP(t, a, context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "perm"))
	if err != nil {
		t.Fatal(err)
	}
	if r.text() != "shell=no page=yes" {
		t.Errorf("answers = %q, want shell=no page=yes", r.text())
	}
}

// Cancelling a turn sends session/cancel and waits for the agent's
// stopReason; the process stays warm for the next turn.
func TestACPCancelKeepsAgentWarm(t *testing.T) {
	a := fakeACP(t, nil)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done, r := startHangingTurn(t, a, ctx, fakeTurn(t, dir, "s1", "", "hang"))
	pid := a.WarmPID("s1")
	cancel()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled turn = %v, want the cancel cause", err)
		}
	case <-time.After(acpCancelWait + 5*time.Second):
		t.Fatal("the cancelled turn did not end")
	}
	r2, err := runACP(t, a, context.Background(), fakeTurn(t, dir, "s1", r.thread, "recall"))
	if err != nil || !strings.HasPrefix(r2.text(), "prompts=2") || a.WarmPID("s1") != pid {
		t.Errorf("after the cancel: %v, %q on pid %d; want prompts=2 on %d", err, r2.text(), a.WarmPID("s1"), pid)
	}
}

// An agent that dies mid-turn: PROVIDER_ERROR with its exit, no process
// left, and the next turn starts a new one.
func TestACPCrashMidTurn(t *testing.T) {
	a := fakeACP(t, nil)
	dir := t.TempDir()
	r, err := runACP(t, a, context.Background(), fakeTurn(t, dir, "s1", "", "crash"))
	wantCode(t, err, wire.CodeProviderError, "exited during the turn")
	if we := wire.AsError(err); we != nil {
		if d, _ := we.Details.(map[string]any); d["exitCode"] != 3 {
			t.Errorf("details = %v, want exitCode 3", we.Details)
		}
	}
	if a.WarmPID("s1") != 0 {
		t.Errorf("a crashed agent is still listed warm")
	}
	if _, err := runACP(t, a, context.Background(), fakeTurn(t, dir, "s1", r.thread, "hello")); err != nil {
		t.Errorf("the turn after a crash: %v\ndetails: %+v", err, wire.AsError(err).Details)
	}
}

// After a restart (a new provider, no warm process) a turn with the
// thread id starts the agent and session/load's it; the replay is not
// shown again. An agent that cannot load gets a new session and a warning.
func TestACPLoadAfterRestart(t *testing.T) {
	dir := t.TempDir()
	first := fakeACP(t, nil)
	r1, err := runACP(t, first, context.Background(), fakeTurn(t, dir, "s1", "", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	first.CloseSession("s1")

	second := fakeACP(t, nil)
	r2, err := runACP(t, second, context.Background(), fakeTurn(t, dir, "s1", r1.thread, "recall"))
	if err != nil {
		// The details hold the agent's exit and stderr: what ended it.
		if we := wire.AsError(err); we != nil {
			t.Fatalf("%v\ndetails: %+v", err, we.Details)
		}
		t.Fatal(err)
	}
	if !strings.HasPrefix(r2.text(), "prompts=101") || r2.thread != r1.thread {
		t.Errorf("after restart: %q on thread %s; want the loaded session %s (prompts=101), no replay", r2.text(), r2.thread, r1.thread)
	}

	third := fakeACP(t, map[string]string{fakeACPNoLoadEnv: "1"})
	r3, err := runACP(t, third, context.Background(), fakeTurn(t, dir, "s2", r1.thread, "recall"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r3.text(), "prompts=1 ") || r3.thread == r1.thread {
		t.Errorf("no load: %q on %s, want a new session", r3.text(), r3.thread)
	}
	if len(r3.warns) == 0 || !strings.Contains(strings.Join(r3.warns, "\n"), "could not load ACP session") {
		t.Errorf("warnings = %q, want one about the failed load", r3.warns)
	}
}

// A warm agent with no turn for idle_timeout stops.
func TestACPIdleTimeoutStopsAgent(t *testing.T) {
	a := fakeACP(t, nil)
	a.idle = 200 * time.Millisecond
	if _, err := runACP(t, a, context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "hello")); err != nil {
		t.Fatal(err)
	}
	pid := a.WarmPID("s1")
	if pid == 0 {
		t.Fatal("no warm agent after a turn")
	}
	waitGone(t, pid)
	deadline := time.Now().Add(5 * time.Second)
	for a.WarmPID("s1") != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if a.WarmPID("s1") != 0 {
		t.Error("the idle agent is still listed")
	}
}

// A missing executable is PROVIDER_UNAVAILABLE, and Check says why.
func TestACPMissingExecutable(t *testing.T) {
	a := NewCustomACP("fake", Settings{Executable: "/nonexistent/agent"})
	if info := a.Check(context.Background()); info.Available || info.Reason == "" {
		t.Errorf("Check = %+v", info)
	}
	err := a.RunTurn(context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "hello"), func(Event) {})
	wantCode(t, err, wire.CodeProviderUnavailable, "not an executable")
}

// CloseSession returns only once the agent is gone, also when the idle
// timer is already stopping it: Core stopping must not leave it behind.
func TestACPCloseWaitsForAStopUnderWay(t *testing.T) {
	a := fakeACP(t, nil)
	a.idle = 50 * time.Millisecond
	if _, err := runACP(t, a, context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "hello")); err != nil {
		t.Fatal(err)
	}
	pid := a.WarmPID("s1")
	deadline := time.Now().Add(5 * time.Second)
	for a.WarmPID("s1") != 0 && time.Now().Before(deadline) { // the idle timer took it
		time.Sleep(5 * time.Millisecond)
	}
	a.CloseSession("s1")
	if pidAlive(pid) {
		t.Errorf("CloseSession returned while the agent %d still runs", pid)
	}
}

// An agent that is unusable after session/cancel (claude-agent-acp) is
// stopped once the cancelled turn ended, and the next turn session/load's
// its session in a new process.
func TestACPRestartAfterCancel(t *testing.T) {
	a := fakeACP(t, nil)
	a.spec.restartAfterCancel = true
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done, r := startHangingTurn(t, a, ctx, fakeTurn(t, dir, "s1", "", "hang"))
	pid := a.WarmPID("s1")
	cancel()
	<-done
	waitGone(t, pid)
	r2, err := runACP(t, a, context.Background(), fakeTurn(t, dir, "s1", r.thread, "recall"))
	if err != nil || !strings.HasPrefix(r2.text(), "prompts=101") || r2.thread != r.thread {
		t.Errorf("after the restart: %v, %q on %s; want the loaded session %s (prompts=101)", err, r2.text(), r2.thread, r.thread)
	}
}

// A turn that arrives as the idle timer fires does not reuse the agent the
// timer is stopping: it starts another (and resumes the ACP session), and
// the stopped one goes.
func TestACPTurnAsIdleTimerFires(t *testing.T) {
	a := fakeACP(t, nil)
	release := make(chan struct{})
	a.clock = func(time.Duration, func()) *time.Timer {
		// The timer has fired (Stop reports false) and its drop has not
		// got the lock yet: it runs once the test lets it.
		return time.AfterFunc(0, func() {})
	}
	r1, err := runACP(t, a, context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	old := a.warm["s1"]
	a.mu.Unlock()
	pid := old.proc.Pid()
	time.Sleep(20 * time.Millisecond) // the 0-length timer has fired
	go func() { <-release; a.drop("s1", old) }()
	r2, err := runACP(t, a, context.Background(), fakeTurn(t, t.TempDir(), "s1", r1.thread, "recall"))
	close(release)
	if err != nil {
		t.Fatalf("the turn after the timer fired: %v", err)
	}
	if got := a.WarmPID("s1"); got == pid || got == 0 {
		t.Errorf("the turn ran on pid %d; want a new agent, not %d that the timer is stopping", got, pid)
	}
	if r2.thread != r1.thread {
		t.Errorf("the new agent's session %s, want %s loaded", r2.thread, r1.thread)
	}
	waitGone(t, pid)
}

// An agent that learns its tools only when it starts (qwen) is started
// again, loading its session, on the first turn whose tools differ from
// its start's; a turn with the same tools keeps it. Others keep theirs.
func TestACPToolsChangeRestartsAnAgentThatLearnsThemAtStart(t *testing.T) {
	one := []schema.Tool{{Name: "update_counter", Description: "Add delta to the counter."}}
	two := append(slices.Clone(one), schema.Tool{Name: "reset_counter", Description: "Set the counter to zero."})
	for _, atStart := range []bool{true, false} {
		a := fakeACP(t, nil)
		a.spec.toolsAtStart = atStart
		dir := t.TempDir()
		turn := func(thread string, tools []schema.Tool) *acpRecorder {
			t.Helper()
			ft := fakeTurn(t, dir, "s1", thread, "recall")
			ft.Tools = tools
			r, err := runACP(t, a, context.Background(), ft)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		r1 := turn("", one)
		pid := a.WarmPID("s1")
		r2 := turn(r1.thread, two)
		changed := a.WarmPID("s1")
		r3 := turn(r2.thread, two)
		if atStart {
			if changed == pid || !strings.HasPrefix(r2.text(), "prompts=101") || r2.thread != r1.thread {
				t.Errorf("tools changed: pid %d → %d, %q on %s; want a new agent that loaded %s (prompts=101)", pid, changed, r2.text(), r2.thread, r1.thread)
			}
		} else if changed != pid || !strings.HasPrefix(r2.text(), "prompts=2") {
			t.Errorf("an agent that hears tools/list_changed was restarted: pid %d → %d, %q", pid, changed, r2.text())
		}
		if a.WarmPID("s1") != changed || strings.HasPrefix(r3.text(), "prompts=1 ") {
			t.Errorf("atStart %v: the same tools again: pid %d → %d, %q; want the same agent", atStart, changed, a.WarmPID("s1"), r3.text())
		}
	}
}

// When the tools change between turns, RestartForTools starts the new
// agent at once (the next turn finds it ready, loaded): the turn that
// comes takes that agent, whether the start is still under way or done.
func TestACPRestartForToolsBetweenTurns(t *testing.T) {
	one := []schema.Tool{{Name: "update_counter", Description: "Add delta to the counter."}}
	two := append(slices.Clone(one), schema.Tool{Name: "reset_counter", Description: "Set the counter to zero."})
	a := fakeACP(t, nil)
	a.spec.toolsAtStart = true
	dir := t.TempDir()
	ft := fakeTurn(t, dir, "s1", "", "recall")
	ft.Tools = one
	r1, err := runACP(t, a, context.Background(), ft)
	if err != nil {
		t.Fatal(err)
	}
	pid := a.WarmPID("s1")
	same := fakeTurn(t, dir, "s1", r1.thread, "")
	same.Tools = one
	if a.RestartForTools(same, func(err error) { t.Errorf("restart: %v", err) }) {
		t.Error("restarted an agent that has the tools already")
	}
	next := fakeTurn(t, dir, "s1", r1.thread, "recall")
	next.Tools = two
	if !a.RestartForTools(next, func(err error) { t.Errorf("restart: %v", err) }) {
		t.Fatal("RestartForTools did not restart the agent for new tools")
	}
	r2, err := runACP(t, a, context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if a.WarmPID("s1") == pid || !strings.HasPrefix(r2.text(), "prompts=101") || r2.thread != r1.thread {
		t.Errorf("after RestartForTools: pid %d → %d, %q on %s; want a new agent that loaded %s", pid, a.WarmPID("s1"), r2.text(), r2.thread, r1.thread)
	}
	if pidAlive(pid) {
		t.Errorf("the agent with the old tools (%d) still runs", pid)
	}
}

// RestartForTools while a turn has the agent (a page's update_tools that
// raced the turn's start past the session's check) leaves that agent to
// the turn: stopping it, or starting a second agent of the session beside
// it (whose stop sweeps every process of the session's tag), would end
// the turn as a crash. The next turn's own check restarts it.
func TestACPRestartForToolsLeavesAnAgentInATurn(t *testing.T) {
	one := []schema.Tool{{Name: "update_counter", Description: "Add delta to the counter."}}
	two := append(slices.Clone(one), schema.Tool{Name: "reset_counter", Description: "Set the counter to zero."})
	a := fakeACP(t, nil)
	a.spec.toolsAtStart = true
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ft := fakeTurn(t, dir, "s1", "", "hang")
	ft.Tools = one
	done, r := startHangingTurn(t, a, ctx, ft)
	pid := a.WarmPID("s1")
	next := fakeTurn(t, dir, "s1", r.thread, "")
	next.Tools = two
	if a.RestartForTools(next, func(err error) { t.Errorf("restart: %v", err) }) {
		t.Error("RestartForTools took the agent of a running turn")
	}
	cancel()
	if err := <-done; err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("the turn = %v (%+v), want it cancelled, not crashed", err, wire.AsError(err).Details)
	}
	if a.WarmPID("s1") != pid || !pidAlive(pid) {
		t.Errorf("the turn's agent %d is gone (warm: %d)", pid, a.WarmPID("s1"))
	}
}
