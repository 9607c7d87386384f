package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/console"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The console's feed (runtime/console, through session_console.go) and its routes
// behind the approvals Guard's Read (runtime/approvals/guard.go), in process: what a turn with calls looks like in a
// session's view, that a delta carries only what changed, and that the
// console answers only Core's own origin.

// consoleSession runs one turn with a call answered, one timed out, and
// chat, and returns the session.
func consoleSession(t *testing.T, h *harness) (*session.Session, *heldTurn, string) {
	t.Helper()
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return map[string]any{"got": args} })
	info, s := h.session(p, true)
	turnID, ht := h.send(p, info.SessionID, "please echo 7")
	ht.emit(providerChat("Calling echo. "))
	if r := awaitCall(t, callAsync(ht, "echo", `{"x": 7}`)); r.err != nil {
		t.Fatal(r.err)
	}
	wantCode(t, awaitCall(t, callAsync(ht, "slow", `{}`)).err, wire.CodeToolTimeout)
	ht.emit(providerChat("Done."))
	return s, ht, turnID
}

func TestConsoleViewOfATurn(t *testing.T) {
	h := newHarness(t, nil)
	s, ht, turnID := consoleSession(t, h)
	v := s.ConsoleView()
	if v.ID != s.ID() || v.Provider != "held" || v.Model != "held-model" || v.Status != wire.StatusRunning || !v.Attached {
		t.Fatalf("session facts: %+v", v)
	}
	if len(v.Turns) != 1 || v.Turns[0].ID != turnID || v.Turns[0].Text != "please echo 7" || v.Turns[0].Agent != "Calling echo. Done." || v.Turns[0].Done {
		t.Fatalf("turns: %+v", v.Turns)
	}
	if len(v.Calls) != 2 {
		t.Fatalf("calls: %+v", v.Calls)
	}
	// The agent wrote {"x": 7}: the console shows and repeats it as written.
	echo, slow := v.Calls[0], v.Calls[1]
	if echo.Tool != "echo" || echo.Status != "result" || string(echo.Args) != `{"x": 7}` || echo.TurnID != turnID ||
		echo.DurationMs == nil || echo.Error != nil || !strings.Contains(string(echo.Result), `"got"`) {
		t.Errorf("echo: %+v", echo)
	}
	if want := "pedelec tool-call --thread-id " + AgentThreadID(s.ID()) + ` echo '{"x": 7}'`; echo.Command != want {
		t.Errorf("command %q, want %q", echo.Command, want)
	}
	if slow.Status != "timeout" || slow.Error == nil || slow.Error.Code != wire.CodeToolTimeout || *slow.DurationMs < 150 {
		t.Errorf("slow: %+v", slow)
	}
	ht.finish <- nil
	testenvAwait(t, "the turn's done in the view", func() bool {
		v := s.ConsoleView()
		return len(v.Turns) == 1 && v.Turns[0].Done && v.Turns[0].OK && v.Status == wire.StatusIdle
	})

	// Ended and retired, the session keeps its view until Core forgets it.
	s.End(wire.EndedData{Reason: wire.EndReasonEndSession})
	rec, err := h.core.session(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	v = rec.ConsoleView()
	if v.Status != wire.StatusEnded || v.EndReason != wire.EndReasonEndSession || len(v.Calls) != 2 || v.Turns[0].Text != "please echo 7" {
		t.Errorf("retired view: %+v", v)
	}
}

func TestConsoleFeedDeltas(t *testing.T) {
	h := newHarness(t, nil)
	var f console.Tracker
	in := consoleInput(h, false, nil)
	snap := f.Snapshot(in, h.core.coreURL)
	if len(snap.Sessions) != 0 || snap.Approvals == nil || len(snap.Approvals.Pending)+len(snap.Approvals.Origins) != 0 || snap.Version != 1 {
		t.Fatalf("empty snapshot: %+v", snap)
	}
	if _, ok := f.Delta(consoleInput(h, false, nil)); ok {
		t.Fatal("a delta with nothing changed")
	}
	s, ht, _ := consoleSession(t, h)
	d, ok := f.Delta(consoleInput(h, false, nil))
	if !ok || len(d.Sessions) != 1 || d.Sessions[0].ID != s.ID() || len(d.Sessions[0].Calls) != 2 || d.Version != 2 || d.Processes != nil || d.Approvals != nil {
		t.Fatalf("delta after a turn: %+v", d)
	}
	if _, ok := f.Delta(consoleInput(h, false, nil)); ok {
		t.Fatal("the same session sent twice")
	}
	ht.emit(providerChat(" more"))
	testenvAwait(t, "a delta for the chat", func() bool {
		d, ok := f.Delta(consoleInput(h, false, nil))
		return ok && len(d.Sessions) == 1 && strings.HasSuffix(d.Sessions[0].Turns[0].Agent, " more")
	})
	// Processes and approvals are sent when they change, and only then.
	in = consoleInput(h, false, nil)
	in.Processes = []wire.ConsoleProcess{{PID: 42, SessionID: s.ID(), Command: "held"}}
	in.Approvals = &wire.ApprovalsState{Pending: []wire.ApprovalRequest{{ID: "ap_1", Kind: wire.ApprovalOrigin, Origin: "http://x.test"}}}
	d, ok = f.Delta(in)
	if !ok || d.Sessions != nil || d.Processes == nil || len(*d.Processes) != 1 || d.Approvals == nil {
		t.Fatalf("delta of processes and approvals: %+v", d)
	}
	if _, ok := f.Delta(in); ok {
		t.Fatal("processes and approvals sent twice")
	}
	// A session Core forgot is removed. Core forgets only sessions that
	// ended, so the turn ends first: one left running would hold Shutdown,
	// which no longer finds the session to cancel it.
	ht.finish <- nil
	testenvAwait(t, "the turn's end", func() bool {
		return s.TurnID() == ""
	})
	h.core.sessions.Forget(s.ID())
	d, ok = f.Delta(consoleInput(h, false, in.Processes))
	if !ok || len(d.Removed) != 1 || d.Removed[0] != s.ID() {
		t.Fatalf("delta after forgetting: %+v", d)
	}
}

// The approvals the console shows are the Book's, and a change to them
// wakes the console's feeds.
func TestConsoleFeedApprovals(t *testing.T) {
	h := newHarness(t, func(o *Options) {})
	if snap := console.Snapshot(consoleHost{h.core}); snap.Approvals == nil || len(snap.Approvals.Origins) != 0 {
		t.Fatalf("approvals before any grant: %+v", snap.Approvals)
	}
	changed := h.core.console.Wait()
	if err := h.core.book.Grant("http://app.test", "console"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the console was not woken by a grant")
	}
	snap := console.Snapshot(consoleHost{h.core})
	if snap.Approvals == nil || len(snap.Approvals.Origins) != 1 || snap.Approvals.Origins[0].Origin != "http://app.test" {
		t.Fatalf("approvals: %+v", snap.Approvals)
	}
}

// The feed over HTTP: a snapshot, then a delta within a second of a call.
func TestConsoleFeedStream(t *testing.T) {
	h := newHarness(t, nil)
	req, _ := http.NewRequest("GET", h.srv.URL+wire.ConsoleFeedPath, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("feed: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	events := make(chan [2]string, 16)
	go readSSE(res.Body, events)
	first := <-events
	if first[0] != "snapshot" {
		t.Fatalf("first event %q", first[0])
	}
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return "ok" })
	info, _ := h.session(p, true)
	_, ht := h.send(p, info.SessionID, "go")
	calls := callAsync(ht, "echo", `{"x": 1}`)
	start := time.Now()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-events:
			var d wire.ConsoleDelta
			if ev[0] != "delta" || json.Unmarshal([]byte(ev[1]), &d) != nil {
				t.Fatalf("event %q: %s", ev[0], ev[1])
			}
			if len(d.Sessions) == 1 && len(d.Sessions[0].Calls) == 1 {
				if since := time.Since(start); since > time.Second {
					t.Errorf("the call showed after %s", since)
				}
				awaitCall(t, calls)
				return
			}
		case <-deadline:
			t.Fatal("no delta with the call")
		}
	}
}

func readSSE(r io.Reader, out chan<- [2]string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			out <- [2]string{name, strings.TrimPrefix(line, "data: ")}
		}
	}
	close(out)
}

func TestConsoleGuard(t *testing.T) {
	h := newHarness(t, nil)
	rec := newConsoleHarness(t, h)
	own := h.srv.URL
	cases := []struct {
		name, path, origin, site string
		want                     int
	}{
		{"typed in the address bar", wire.ConsolePath, "", "none", 200},
		{"a program without browser headers", wire.ConsolePath, "", "", 200},
		{"the console's own fetch", wire.ConsoleFeedPath, own, "same-origin", 200},
		{"another origin's fetch", wire.ConsoleFeedPath, "http://evil.test", "cross-site", 403},
		{"another port of localhost (same-site)", wire.ConsoleFeedPath, "http://127.0.0.1:1", "same-site", 403},
		{"a link from another site", wire.ConsolePath, "", "cross-site", 403},
		{"an opaque origin", wire.ConsoleFeedPath, "null", "cross-site", 403},
		{"a record read from another origin", wire.ConsoleRecordPath + rec + "/record", "http://evil.test", "cross-site", 403},
		{"the record", wire.ConsoleRecordPath + rec + "/record", own, "same-origin", 200},
		{"no such session", wire.ConsoleRecordPath + "s_nope/record", own, "same-origin", 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", h.srv.URL+tc.path, nil)
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.site != "" {
				req.Header.Set("Sec-Fetch-Site", tc.site)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("status %d, want %d", res.StatusCode, tc.want)
			}
			hd := res.Header
			if !strings.Contains(hd.Get("Content-Security-Policy"), "frame-ancestors 'none'") || hd.Get("X-Frame-Options") != "DENY" ||
				hd.Get("Cross-Origin-Resource-Policy") != "same-origin" || hd.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("headers: %v", hd)
			}
		})
	}
}

// newConsoleHarness serves the console's page from a fake file tree on
// h's server and returns the id of a session to ask for.
func newConsoleHarness(t *testing.T, h *harness) string {
	t.Helper()
	files := fstest.MapFS{
		"index.html": {Data: []byte(`<meta name="pedelec-approver-token" content="{{APPROVER_TOKEN}}">`)},
		"console.js": {Data: []byte(`//`)},
	}
	h.srv.Config.Handler = h.core.Handler(Assets{Console: files})
	p := h.page()
	info, _ := h.session(p, true)
	return info.SessionID
}

func TestConsolePageCarriesTheApproverToken(t *testing.T) {
	h := newHarness(t, nil)
	newConsoleHarness(t, h)
	res, err := http.Get(h.srv.URL + wire.ConsolePath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `content="`+h.core.approver+`"`) || !strings.HasPrefix(h.core.approver, "pa_") {
		t.Errorf("page: %s", body)
	}
	if res.Header.Get("Cache-Control") != "no-store" || !strings.Contains(res.Header.Get("Content-Type"), "text/html") {
		t.Errorf("headers: %v", res.Header)
	}
	for path, want := range map[string]int{"console.js": 200, "nope.js": 404, "../index.html": 404} {
		res, err := http.Get(h.srv.URL + wire.ConsolePath + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}

func TestApproverTokenFile(t *testing.T) {
	h := newHarness(t, nil)
	if err := h.core.writeApproverToken(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.core.opts.StateDir, wire.ApproverTokenFile)
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st, err)
	}
	data, _ := os.ReadFile(path)
	if strings.TrimSpace(string(data)) != h.core.approver || h.core.approver == h.core.token {
		t.Fatalf("token file holds %q", data)
	}
	h.core.removeApproverToken()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("token file left: %v", err)
	}
}

// consoleInput is what h's Core shows the console now.
func consoleInput(h *harness, withProcesses bool, prev []wire.ConsoleProcess) console.Input {
	return console.Gather(consoleHost{h.core}, withProcesses, prev)
}

func providerChat(text string) provider.Event { return provider.Event{ChatDelta: text} }

// testenvAwait polls cond for up to 5 s.
func testenvAwait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConsoleShowsWhoApproved(t *testing.T) {
	h := newHarness(t, nil)
	s, _, _ := consoleSession(t, h)
	var f console.Tracker
	f.Snapshot(consoleInput(h, false, nil), "")
	id := s.ConsoleView().Calls[0].ID
	h.core.sessions.NoteCallApproved(s.ID(), id, "console")
	d, ok := f.Delta(consoleInput(h, false, nil))
	if !ok || len(d.Sessions) != 1 || d.Sessions[0].Calls[0].ApprovedBy != "console" {
		t.Errorf("delta after the approval: %+v", d)
	}
}
