package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// resumeAfter resumes sessionID on p as a page that handled events up to lastSeq.
func resumeAfter(t *testing.T, p *wspage.Page, sessionID string, lastSeq int64) wire.SessionInfo {
	t.Helper()
	var info wire.SessionInfo
	json.Unmarshal(p.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: sessionID, LastSeq: &lastSeq}), &info)
	return info
}

// lastSeqOf is the highest seq p received for sessionID.
func lastSeqOf(p *wspage.Page, sessionID string) int64 {
	var last int64
	for _, e := range p.Events() {
		if e.SessionID == sessionID && e.Seq > last {
			last = e.Seq
		}
	}
	return last
}

// contiguous asserts the session's events on p have seqs from+1, from+2, ...
// each once, in order.
func contiguous(t *testing.T, p *wspage.Page, sessionID string, from int64) {
	t.Helper()
	want := from + 1
	for _, e := range p.Events() {
		if e.SessionID != sessionID {
			continue
		}
		if e.Event == wire.EventEventsTruncated {
			var d wire.EventsTruncatedData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			if d.FromSeq != want || e.Seq != d.ToSeq {
				t.Fatalf("events_truncated %+v at seq %d, want it from seq %d", d, e.Seq, want)
			}
			want = d.ToSeq + 1
			continue
		}
		if e.Seq != want {
			t.Fatalf("event %s has seq %d, want %d (each seq once, in order)", e.Event, e.Seq, want)
		}
		want++
	}
}

// A session with a finished turn survives kill -9 and SIGTERM of Core: the
// page resumes it idle, and the agent's next turn has the first in its thread.
func TestRestartKeepsSession(t *testing.T) {
	for _, how := range []string{"kill -9", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			srv := testenv.Serve(t, nil)
			p := wspage.Dial(t, srv.WSURL, "")
			info := scriptSession(t, p, true)
			first := p.SendText(info.SessionID, "say the first message")
			if d := p.AwaitDone(first, 20*time.Second); !d.OK {
				t.Fatalf("first turn: %+v", d)
			}
			last := lastSeqOf(p, info.SessionID)
			if how == "kill -9" {
				srv.Kill()
			} else {
				srv.Stop(t)
			}
			srv.Restart(t)

			p2 := wspage.Dial(t, srv.WSURL, "")
			resumed := resumeAfter(t, p2, info.SessionID, last)
			if resumed.Status != wire.StatusIdle || resumed.Seq != last || resumed.Provider != "script" || len(resumed.Tools) != 3 {
				t.Fatalf("resumed after %s = %+v (last seq %d)", how, resumed, last)
			}
			second := p2.SendText(info.SessionID, "history")
			if d := p2.AwaitDone(second, 20*time.Second); !d.OK {
				t.Fatalf("second turn: %+v", d)
			}
			if chat := p2.Chat(second); !strings.Contains(chat, "say the first message") {
				t.Fatalf("the agent's resumed thread lacks the first turn: %q", chat)
			}
			contiguous(t, p2, info.SessionID, last)
			p2.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: info.SessionID})
			noSessionLeftovers(t, srv, info.SessionID)
			// Ended for good: a restart does not bring it back.
			srv.Stop(t)
			srv.Restart(t)
			p3 := wspage.Dial(t, srv.WSURL, "")
			if _, err := p3.Call(wire.MethodResumeSession, wire.SessionParams{SessionID: info.SessionID}); err == nil || err.Code != wire.CodeThreadNotFound {
				t.Fatalf("resume of an ended session after restart: %+v", err)
			}
		})
	}
}

// A turn running when Core stops is cut off: no process survives, its
// pending call fails TURN_INTERRUPTED, the page that resumes hears how the
// turn ended, and the next turn works.
func TestRestartMidTurn(t *testing.T) {
	for _, how := range []string{"kill -9", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			srv := testenv.Serve(t, nil)
			p := wspage.Dial(t, srv.WSURL, "")
			info := scriptSession(t, p, false)
			turn, call := awaitPendingCall(t, p, info.SessionID)
			last := lastSeqOf(p, info.SessionID)
			tag := wire.EnvThreadID + "=" + info.SessionID
			if how == "kill -9" {
				srv.Kill()
			} else {
				srv.Stop(t)
				if n := len(testenv.ProcessesWithEnv(tag)); n != 0 {
					t.Fatalf("%d provider processes outlived a graceful shutdown", n)
				}
			}
			srv.Restart(t)
			if n := len(testenv.ProcessesWithEnv(tag)); n != 0 {
				t.Fatalf("%d leftover processes still run after the restart", n)
			}
			if _, err := os.Stat(filepath.Join(runtime.WorkDir(srv.StateDir, info.SessionID), "work")); err != nil {
				t.Fatalf("the session's work directory is gone: %v", err)
			}
			p2 := wspage.Dial(t, srv.WSURL, "")
			resumed := resumeAfter(t, p2, info.SessionID, last)
			if resumed.Status != wire.StatusError {
				t.Fatalf("resumed after %s mid-turn = %+v", how, resumed)
			}
			d := p2.AwaitDone(turn, 10*time.Second)
			if d.OK || d.Error == nil || d.Error.Code != wire.CodeTurnInterrupted {
				t.Fatalf("done of the cut-off turn = %+v", d)
			}
			p2.AwaitEvent(5*time.Second, "the call settled interrupted", func(e wire.Event) bool {
				return e.Event == wire.EventToolCallSettled && strings.Contains(string(e.Data.(json.RawMessage)), `"interrupted"`)
			})
			if _, err := p2.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"value":7}`)}); err == nil || err.Code != wire.CodeToolRequestNotPending {
				t.Fatalf("a late result for the cut-off call: %+v", err)
			}
			next := p2.SendText(info.SessionID, "say again")
			if d := p2.AwaitDone(next, 20*time.Second); !d.OK || p2.Chat(next) != "again\n" {
				t.Fatalf("the turn after the restart: %+v %q", d, p2.Chat(next))
			}
			contiguous(t, p2, info.SessionID, last)
		})
	}
}

// Every call pending at kill -9 settles after the restart, each once, and
// a late result for each is refused as interrupted. Issue 20: of three,
// the restarted Core knew one; the other two never settled, and their
// results got reason "unknown".
func TestKillWithThreeCallsPending(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, false)
	turn := p.SendText(info.SessionID, "& call update_counter {\"delta\": 1}\n& call update_counter {\"delta\": 2}\n& call update_counter {\"delta\": 3}")
	var ids []string
	p.AwaitEvent(20*time.Second, "three tool calls", func(e wire.Event) bool {
		if e.Event == wire.EventToolCall {
			var d wire.ToolCallData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			ids = append(ids, d.ToolRequestID)
		}
		return len(ids) == 3
	})
	last := lastSeqOf(p, info.SessionID)
	srv.Kill()
	srv.Restart(t)

	p2 := wspage.Dial(t, srv.WSURL, "")
	resumeAfter(t, p2, info.SessionID, last)
	if d := p2.AwaitDone(turn, 10*time.Second); d.OK || d.Error == nil || d.Error.Code != wire.CodeTurnInterrupted {
		t.Fatalf("done of the cut-off turn = %+v", d)
	}
	outcomes := map[string][]wire.SettleOutcome{}
	for _, e := range p2.Events() {
		if e.Event == wire.EventToolCallSettled {
			var d wire.ToolCallSettledData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			outcomes[d.ToolRequestID] = append(outcomes[d.ToolRequestID], d.Outcome)
		}
	}
	for _, id := range ids {
		if got := outcomes[id]; len(got) != 1 || got[0] != wire.OutcomeInterrupted {
			t.Errorf("call %s settled %v after the restart, want [interrupted]", id, got)
		}
		_, err := p2.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: id, Result: json.RawMessage(`{"value":1}`)})
		if details, _ := errDetails(err); err == nil || err.Code != wire.CodeToolRequestNotPending || details["reason"] != string(wire.OutcomeInterrupted) {
			t.Errorf("a late result for %s: %+v", id, err)
		}
	}
	contiguous(t, p2, info.SessionID, last)
}

// errDetails is a wire error's details as a JSON object.
func errDetails(err *wire.Error) (map[string]any, bool) {
	if err == nil {
		return nil, false
	}
	d, ok := err.Details.(map[string]any)
	return d, ok
}

// Issue 20: the 14-byte journal segment that panicked every start, and a
// database that is not one, start Core: both are set aside (renamed, not
// deleted), one log line says so, and sessions work.
func TestServeStartsOnDamagedState(t *testing.T) {
	state := t.TempDir()
	os.WriteFile(filepath.Join(state, persist.FileName), bytes.Repeat([]byte("not bbolt"), 4096), 0o600)
	os.WriteFile(filepath.Join(state, "pedelec.db.journal.7"), []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01abcd"), 0o600)
	srv := testenv.ServeIn(t, testenv.FreeAddr(t), state, nil)
	// Serve is up once it answers; its stderr is read beside that, so the
	// line may land a moment later.
	testenv.Await(t, 10*time.Second, "the log line about what was set aside", func() bool {
		return strings.Contains(srv.Logs(), "set aside")
	})
	if n := strings.Count(srv.Logs(), "set aside"); n != 1 {
		t.Fatalf("%d log lines about what was set aside, want 1:\n%s", n, srv.Logs())
	}
	for _, glob := range []string{"pedelec.db.unreadable-*", "pedelec.db.journal.7.unreadable-*"} {
		if m, _ := filepath.Glob(filepath.Join(state, glob)); len(m) != 1 {
			t.Fatalf("%s: %v", glob, m)
		}
	}
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	if d := p.AwaitDone(p.SendText(info.SessionID, "say hello"), 20*time.Second); !d.OK {
		t.Fatalf("a turn after starting on damaged state: %+v", d)
	}
}

// A state directory Core cannot trust, or a file of a newer pedelec, stops
// `pedelec serve` at once with exit status 1 and a message that names it.
func TestServeRefusesStateItCannotUse(t *testing.T) {
	cases := map[string]func(t *testing.T, state string) string{
		"writable by others": func(t *testing.T, state string) string {
			os.Chmod(state, 0o777)
			return "can be written by other users"
		},
		"sessions is a link": func(t *testing.T, state string) string {
			os.Symlink(t.TempDir(), filepath.Join(state, "sessions"))
			return "is a symbolic link"
		},
		"newer journal": func(t *testing.T, state string) string {
			os.WriteFile(filepath.Join(state, "pedelec.db.journal.2"), []byte("\x00PDLJ\x09"), 0o600)
			return "use the newer pedelec, or move the file aside"
		},
	}
	for name, prepare := range cases {
		t.Run(name, func(t *testing.T) {
			state := t.TempDir()
			want := prepare(t, state)
			cmd := exec.Command(testenv.Binary(t), "serve", "--addr", "127.0.0.1:0", "--state-dir", state)
			cmd.Env = append(os.Environ(), "PEDELEC_CONFIG="+filepath.Join(state, "no-config.toml"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(stderr.String(), state) || !strings.Contains(stderr.String(), want) {
					t.Fatalf("exit %v, stderr:\n%s\nwant exit status 1 and a message naming %s that says %q", err, stderr.String(), state, want)
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("pedelec serve started:\n%s", stderr.String())
			}
		})
	}
}

// A page that loses its connection mid-turn and resumes with the last seq
// it handled gets every event it missed, chat included, once and in order.
func TestResumeReplaysMissedEvents(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, false)
	turn := p.SendText(info.SessionID, "say one\ncall slow_tool\nsay two\nsay three")
	p.AwaitEvent(10*time.Second, "the slow call", func(e wire.Event) bool { return e.Event == wire.EventToolCall })
	last := lastSeqOf(p, info.SessionID)
	before := p.Chat(turn)
	p.Close()
	// The call times out and the turn goes on while no page is attached.
	testenv.Await(t, 20*time.Second, "the turn to finish while detached", func() bool {
		return strings.Contains(srv.Logs(), "turn done")
	})
	p2 := wspage.Dial(t, srv.WSURL, "")
	resumeAfter(t, p2, info.SessionID, last)
	if d := p2.AwaitDone(turn, 10*time.Second); !d.OK {
		t.Fatalf("replayed done = %+v", d)
	}
	chat := before + p2.Chat(turn)
	if !strings.HasPrefix(chat, "one\n") || !strings.Contains(chat, string(wire.CodeToolTimeout)) || !strings.HasSuffix(chat, "two\nthree\n") {
		t.Fatalf("chat across the disconnect = %q", chat)
	}
	contiguous(t, p2, info.SessionID, last)
	// Resuming again from the same point gives the same events again, no more.
	p3 := wspage.Dial(t, srv.WSURL, "")
	resumeAfter(t, p3, info.SessionID, last)
	p3.AwaitDone(turn, 10*time.Second)
	if a, b := len(p2.Events()), len(p3.Events()); a != b {
		t.Fatalf("two replays from seq %d differ: %d and %d events", last, a, b)
	}
}

// Events the bounded log dropped are announced by one events_truncated event.
func TestResumeEventsTruncated(t *testing.T) {
	srv := testenv.Serve(t, []string{"--event-log-size", "4"})
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, false)
	p.Close()
	time.Sleep(100 * time.Millisecond)
	p2 := wspage.Dial(t, srv.WSURL, "")
	resumeAfter(t, p2, info.SessionID, 0)
	turn := p2.SendText(info.SessionID, "say a\nsay b\nsay c\nsay d\nsay e")
	p2.AwaitDone(turn, 20*time.Second)
	last := lastSeqOf(p2, info.SessionID)
	p3 := wspage.Dial(t, srv.WSURL, "")
	resumeAfter(t, p3, info.SessionID, 0)
	ev := p3.AwaitEvent(5*time.Second, "events_truncated", func(e wire.Event) bool { return e.Event == wire.EventEventsTruncated })
	var d wire.EventsTruncatedData
	json.Unmarshal(ev.Data.(json.RawMessage), &d)
	if d.FromSeq != 1 || d.ToSeq != last-4 || d.Dropped != last-4 || d.Error == nil || d.Error.Code != wire.CodeEventsTruncated || ev.Seq != d.ToSeq {
		t.Fatalf("events_truncated = %+v at seq %d (last %d)", d, ev.Seq, last)
	}
	p3.AwaitDone(turn, 5*time.Second)
	contiguous(t, p3, info.SessionID, 0)
}

// A killed Core's leftovers (a process an agent detached, the work
// directory of a session that no longer exists) are gone after a restart;
// processes of other state directories and of other tags are left alone.
func TestRestartCleansLeftovers(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	stale := filepath.Join(srv.StateDir, "sessions", "s_stale")
	if err := os.MkdirAll(filepath.Join(stale, "work"), 0o700); err != nil {
		t.Fatal(err)
	}
	start := func(id string) *exec.Cmd {
		cmd := exec.Command("sleep", "300")
		cmd.Env = append(os.Environ(), wire.EnvThreadID+"="+id)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// One Wait only (os/exec allows one): the reaper closes exited,
		// and the cleanup kills and waits for it.
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() { cmd.Process.Kill(); <-exited })
		return cmd
	}
	start(info.SessionID) // as if the agent left it running
	start("s_stale")
	other := start("s_not_of_this_core")
	srv.Kill()
	srv.Restart(t)
	for _, id := range []string{info.SessionID, "s_stale"} {
		if n := len(testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + id)); n != 0 {
			t.Fatalf("%d leftover processes of %s survived the restart", n, id)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the stale work directory is still there: %v", err)
	}
	if len(testenv.ProcessesWithEnv(wire.EnvThreadID+"=s_not_of_this_core")) != 1 {
		t.Fatalf("the restart stopped a process (pid %d) of a session it never had", other.Process.Pid)
	}
	if _, err := os.Stat(runtime.WorkDir(srv.StateDir, info.SessionID)); err != nil {
		t.Fatalf("the live session's work directory was removed: %v", err)
	}
}

// Killing Core at random instants while pages create sessions and run
// turns never leaves a database that does not open, and every restart
// comes back healthy.
func TestCrashMidWriteLeavesDatabaseThatOpens(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts Core many times")
	}
	srv := testenv.Serve(t, nil)
	for round := 0; round < 12; round++ {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pg, _, err := wspage.TryDial(srv.WSURL, "")
				if err != nil {
					return
				}
				defer pg.Close()
				for {
					select {
					case <-stop:
						return
					default:
					}
					auto := false
					params, _ := json.Marshal(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &auto})
					if _, err := pgCall(pg, wire.MethodCreateSession, params); err != nil {
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(50+rand.IntN(400)) * time.Millisecond)
		srv.Kill()
		close(stop)
		wg.Wait()
		db, err := persist.Open(filepath.Join(srv.StateDir, persist.FileName), time.Second)
		if err != nil {
			t.Fatalf("round %d: the database does not open after kill -9: %v", round, err)
		}
		if err := db.Check(); err != nil {
			t.Fatalf("round %d: the database is inconsistent: %v", round, err)
		}
		if _, err := db.Sessions(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		db.Close()
		srv.Restart(t)
	}
	if !strings.Contains(srv.Logs(), "state restored") {
		t.Fatal("no restart restored any session")
	}
}

// pgCall is Page.Call without a testing.T (for goroutines that may outlive a Core).
func pgCall(p *wspage.Page, method string, params json.RawMessage) (json.RawMessage, error) {
	type result struct {
		raw json.RawMessage
		err *wire.Error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if recover() != nil {
				ch <- result{err: wire.Errorf(wire.CodeCoreUnreachable, "closed")}
			}
		}()
		raw, err := p.Call(method, params)
		ch <- result{raw, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return r.raw, nil
	case <-time.After(5 * time.Second):
		return nil, fmt.Errorf("no answer")
	}
}
