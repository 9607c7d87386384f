// Command soak is the fault soak for durable sessions: N sessions each run
// tool calls through the real binary and an agent while the soak
// disconnects pages at random, restarts Core (kill -9 and SIGTERM), kills
// provider processes and answers some calls after their deadline. Pages
// behave like the SDK: they reconnect, resume with the last seq they
// handled, and drop events whose seq they saw. At the end it reports lost,
// duplicated and hung calls (all must be 0), what Core still holds
// (goroutines, open files, processes, work directories) from its debug
// endpoint, and any process or work directory left once Core stopped, and
// exits 1 if anything is wrong.
//
// The agent (-provider):
//
//   - script: the built-in script provider (one `pedelec tool-call` per call);
//
//   - acp: the scripted ACP agent (./acpagent), the path Gemini CLI, opencode
//     and Copilot CLI take by default: a warm process per session, started
//     at createSession, its calls through the session's MCP endpoint and
//     `pedelec tool-call` in turn; it also gives up on some calls mid-call
//     (-cancel), and Core's SIGTERM restarts cancel turns mid-call;
//
//   - any other name: that provider of the settings file -config names (a
//     real agent CLI against a scripted model: e2e/soak_acp_test.go).
//
//     go run ./e2e/soak -sessions 50 -calls 200 -duration 20m
//     go run ./e2e/soak -provider acp -sessions 20 -calls 100 -duration 10m
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

const skills = `{"guidance": "Soak.", "tools": [
 {"name": "record", "description": "Record one call id.", "argsSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}, "timeoutMs": 1500}
]}`

var (
	nSessions    = flag.Int("sessions", 50, "sessions")
	nCalls       = flag.Int("calls", 200, "tool calls per session")
	perTurn      = flag.Int("per-turn", 10, "calls per turn")
	duration     = flag.Duration("duration", 20*time.Minute, "give up after this long")
	faultsAt     = flag.Duration("fault-every", 3*time.Second, "mean time between faults")
	binary       = flag.String("bin", "", "pedelec binary (default: go build)")
	logLevel     = flag.String("log-level", "warn", "Core's log level (its log is kept in the temp directory)")
	lateRate     = flag.Float64("late", 0.02, "share of calls answered after their deadline")
	provName     = flag.String("provider", "script", "the sessions' provider: script, acp (the scripted ACP agent), or a provider of -config")
	settingsFile = flag.String("config", "", "settings file for Core (for a -provider of its own)")
	acpAgent     = flag.String("acp-agent", "", "the scripted ACP agent's binary (default: go build ./e2e/soak/acpagent)")
	cancelAt     = flag.Float64("cancel", 0.05, "-provider acp: share of calls the agent gives up on mid-call")
	restartAt    = flag.Float64("restarts", 0.1, "share of faults that restart Core")
	killAt       = flag.Float64("kills", 0.2, "share of faults that kill an agent (the rest disconnect a page)")
	resumeWin    = flag.Duration("resume-window", 45*time.Second, "Core's --resume-window: how long a session whose createSession answer was lost outlives its page")
	agentName    = flag.String("agent-match", "", "a word of the agent's command line, to find agents to kill (default: by -provider)")
)

// cancelIDs are the calls the agent gives up on: their page answers only
// after the agent stopped waiting, so each is cut off mid-call.
var cancelIDs sync.Map

func main() {
	flag.Parse()
	ok, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

// ---- Core ----

type core struct {
	bin, addr, state string
	config           string
	mu               sync.Mutex
	cmd              *exec.Cmd
	done             chan struct{}
	log              *os.File
}

func (c *core) start() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Room for every session of the run: the default --max-sessions (32)
	// is a guard for shared machines, not what this soak is about.
	cmd := exec.Command(c.bin, "--log-level", *logLevel, "serve", "--addr", c.addr, "--state-dir", c.state, "--event-log-size", "5000", "--resume-window", resumeWin.String(),
		"--max-sessions", fmt.Sprint(2**nSessions+8))
	cmd.Env = append(os.Environ(), "PEDELEC_CONFIG="+c.config)
	cmd.Stdout, cmd.Stderr = c.log, c.log
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	c.cmd, c.done = cmd, done
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + c.addr + "/healthz"); err == nil {
			resp.Body.Close()
			return nil
		}
	}
	return fmt.Errorf("core did not become healthy")
}

func (c *core) stop(sig syscall.Signal) {
	c.mu.Lock()
	cmd, done := c.cmd, c.done
	c.mu.Unlock()
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

func (c *core) counts() (runtime.DebugCounts, error) {
	var n runtime.DebugCounts
	token, err := os.ReadFile(filepath.Join(c.state, wire.CoreTokenFile))
	if err != nil {
		return n, err
	}
	req, _ := http.NewRequest("GET", "http://"+c.addr+runtime.DebugPath, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return n, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return n, fmt.Errorf("debug endpoint: HTTP %d", resp.StatusCode)
	}
	return n, json.NewDecoder(resp.Body).Decode(&n)
}

// ---- a page: one session, SDK-like ----

type page struct {
	core *core
	id   string // session id
	mu   sync.Mutex
	ws   *websocket.Conn
	seq  int64 // last seq handled
	// what the page saw
	handled   map[string]int // toolRequestId → handler runs
	settled   map[string]int // toolRequestId → settled events
	calls     map[string]string
	chat      map[string]*strings.Builder // turnId → chat
	done      map[string]wire.DoneData
	seen      map[string]int // turnId → events of the turn handled, for a hung turn's report
	nextReq   int64
	waiting   map[int64]waiter
	ended     bool
	dups      int // events admitted twice (never: seq gate) or handlers run twice
	resumes   int
	cancelled int // calls settled as cancelled: the agent gave up, or its turn ended
	truncate  int
	resumeErr string // the last failed resume's code, for a hung turn's report
}

// waiter is a request waiting for its response on the socket it was sent on.
type waiter struct {
	ch chan wire.Response
	ws *websocket.Conn
}

func newPage(c *core) *page {
	return &page{core: c, handled: map[string]int{}, settled: map[string]int{}, calls: map[string]string{}, chat: map[string]*strings.Builder{}, done: map[string]wire.DoneData{}, seen: map[string]int{}, waiting: map[int64]waiter{}}
}

func (p *page) dial() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+p.core.addr+"/ws", nil)
	if err != nil {
		return err
	}
	ws.SetReadLimit(64 << 20)
	p.mu.Lock()
	p.ws = ws
	p.mu.Unlock()
	go p.read(ws)
	return nil
}

func (p *page) call(method string, params any) (json.RawMessage, *wire.Error) {
	p.mu.Lock()
	ws := p.ws
	p.nextReq++
	id := p.nextReq
	ch := make(chan wire.Response, 1)
	p.waiting[id] = waiter{ch: ch, ws: ws}
	p.mu.Unlock()
	raw, _ := json.Marshal(params)
	frame, _ := json.Marshal(wire.Request{Type: wire.FrameRequest, ID: id, Method: method, Params: raw})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if ws == nil || ws.Write(ctx, websocket.MessageText, frame) != nil {
		return nil, wire.Errorf(wire.CodeCoreUnreachable, "send failed")
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, wire.Errorf(wire.CodeCoreUnreachable, "closed")
		}
		if !r.OK {
			return nil, r.Error
		}
		b, _ := json.Marshal(r.Result)
		return b, nil
	case <-time.After(15 * time.Second):
		return nil, wire.Errorf(wire.CodeCoreUnreachable, "no answer")
	}
}

func (p *page) read(ws *websocket.Conn) {
	for {
		_, data, err := ws.Read(context.Background())
		if err != nil {
			p.mu.Lock()
			if p.ws == ws {
				p.ws = nil
			}
			// Only this socket's requests failed: a reconnect may already
			// have sent a resume on the next one.
			for id, w := range p.waiting {
				if w.ws != ws {
					continue
				}
				close(w.ch)
				delete(p.waiting, id)
			}
			p.mu.Unlock()
			return
		}
		var head struct {
			Type string          `json:"type"`
			ID   int64           `json:"id"`
			OK   bool            `json:"ok"`
			Res  json.RawMessage `json:"result"`
			Err  *wire.Error     `json:"error"`
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(data, &head)
		if head.Type == wire.FrameResponse {
			p.mu.Lock()
			if w, ok := p.waiting[head.ID]; ok {
				w.ch <- wire.Response{ID: head.ID, OK: head.OK, Result: head.Res, Error: head.Err}
				delete(p.waiting, head.ID)
			}
			p.mu.Unlock()
			continue
		}
		var ev wire.Event
		json.Unmarshal(data, &ev)
		p.event(ev, head.Data)
	}
}

func (p *page) event(ev wire.Event, data json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Seq <= p.seq {
		return // the seq gate: seen already
	}
	p.seq = ev.Seq
	if ev.TurnID != "" {
		p.seen[ev.TurnID]++
	}
	switch ev.Event {
	case wire.EventChatDelta:
		var d wire.ChatDeltaData
		json.Unmarshal(data, &d)
		b := p.chat[ev.TurnID]
		if b == nil {
			b = &strings.Builder{}
			p.chat[ev.TurnID] = b
		}
		b.WriteString(d.Text)
	case wire.EventToolCall:
		var d wire.ToolCallData
		json.Unmarshal(data, &d)
		if p.handled[d.ToolRequestID] > 0 {
			if !d.Redelivered {
				p.dups++
			}
			return
		}
		p.handled[d.ToolRequestID]++
		var a struct{ ID string }
		json.Unmarshal(d.Args, &a)
		p.calls[d.ToolRequestID] = a.ID
		late := rand.Float64() < *lateRate
		go p.answer(d.ToolRequestID, a.ID, late)
	case wire.EventToolCallSettled:
		var d wire.ToolCallSettledData
		json.Unmarshal(data, &d)
		p.settled[d.ToolRequestID]++
		if d.Outcome == wire.OutcomeCancelled {
			p.cancelled++
		}
	case wire.EventDone:
		var d wire.DoneData
		json.Unmarshal(data, &d)
		p.done[ev.TurnID] = d
	case wire.EventEventsTruncated:
		p.truncate++
	case wire.EventEnded:
		p.ended = true
	}
}

// answer submits the handler's result, retrying through reconnects as the SDK does.
func (p *page) answer(reqID, callID string, late bool) {
	if late {
		time.Sleep(2 * time.Second) // past the tool's 1.5 s timeout
	} else if _, cut := cancelIDs.Load(callID); cut {
		time.Sleep(1 * time.Second) // past the agent's patience, within the tool's timeout
	}
	for attempt := 0; attempt < 60; attempt++ {
		_, err := p.call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: p.id, ToolRequestID: reqID, Result: json.RawMessage(fmt.Sprintf(`{"id":%q}`, callID))})
		if err == nil || err.Code != wire.CodeCoreUnreachable {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// resumeFailures and createFailures count failed resumes and createSessions
// by code and message (message → *int64).
var resumeFailures, createFailures sync.Map

// lostCreates counts createSessions sent whose answer never came.
var lostCreates atomic.Int64

// ensure reconnects and resumes with the last seq handled.
// A page that has no session yet has nothing to resume.
func (p *page) ensure() error {
	p.mu.Lock()
	up, id := p.ws != nil, p.id
	p.mu.Unlock()
	if up || id == "" {
		return nil
	}
	if err := p.dial(); err != nil {
		return err
	}
	p.mu.Lock()
	last := p.seq
	p.resumes++
	p.mu.Unlock()
	_, err := p.call(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: p.id, LastSeq: &last})
	if err != nil {
		// Not resumed: drop the socket, or the next ensure would take it
		// for a resumed one and the page would wait for events forever.
		p.mu.Lock()
		p.resumeErr = err.Error()
		p.mu.Unlock()
		v, _ := resumeFailures.LoadOrStore(err.Error(), new(int64))
		atomic.AddInt64(v.(*int64), 1)
		p.disconnect()
		return err
	}
	return nil
}

func (p *page) disconnect() {
	p.mu.Lock()
	ws := p.ws
	p.mu.Unlock()
	if ws != nil {
		ws.CloseNow()
	}
}

// ---- the run ----

type tally struct {
	issued, ok, failedClear, lost, dup, hung int64
	codes                                    sync.Map // code → *int64
}

func (t *tally) code(c string) {
	v, _ := t.codes.LoadOrStore(c, new(int64))
	atomic.AddInt64(v.(*int64), 1)
}

func run() (bool, error) {
	bin := *binary
	if bin == "" {
		dir, _ := os.MkdirTemp("", "pedelec-soak-bin-")
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "pedelec")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return false, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	state, _ := os.MkdirTemp("", "pedelec-soak-state-")
	defer os.RemoveAll(state)
	// A log of its own: two soaks on one machine (the test command's tiers
	// run side by side) must not write one file.
	logf, err := os.CreateTemp("", "pedelec-soak-core-*.log")
	if err != nil {
		return false, err
	}
	prov, cfg, err := setupProvider(state)
	defer func() {
		for _, d := range builtDirs {
			os.RemoveAll(d)
		}
	}()
	if err != nil {
		return false, err
	}
	c := &core{bin: bin, addr: addr, state: state, config: cfg, log: logf}
	if err := c.start(); err != nil {
		return false, err
	}
	base, _ := c.counts()
	fmt.Printf("soak: %d sessions x %d calls, provider %s, Core at %s, log %s\n", *nSessions, *nCalls, prov, addr, logf.Name())
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()

	var restarts, disconnects, providerKills atomic.Int64
	var restarting sync.RWMutex
	stopFaults := make(chan struct{})
	pages := make([]*page, *nSessions)
	var t tally
	// Faults.
	var faultsDone sync.WaitGroup
	faultsDone.Add(1)
	go func() {
		defer faultsDone.Done()
		for {
			select {
			case <-stopFaults:
				return
			case <-time.After(time.Duration(rand.Float64() * 2 * float64(*faultsAt))):
			}
			switch r := rand.Float64(); {
			case r >= *restartAt+*killAt: // a page's connection drops
				if p := pages[rand.IntN(len(pages))]; p != nil {
					p.disconnect()
					disconnects.Add(1)
				}
			case r >= *restartAt: // a provider process dies
				if pid := anyTagged(state, agentMatch()); pid > 0 {
					syscall.Kill(pid, syscall.SIGKILL)
					providerKills.Add(1)
				}
			default: // Core restarts
				restarting.Lock()
				sig := syscall.SIGKILL
				if rand.IntN(2) == 0 {
					sig = syscall.SIGTERM
				}
				c.stop(sig)
				if err := c.start(); err != nil {
					fmt.Fprintln(os.Stderr, "restart:", err)
				}
				restarts.Add(1)
				restarting.Unlock()
			}
		}
	}()

	var wg sync.WaitGroup
	for i := range pages {
		p := newPage(c)
		pages[i] = p
		wg.Add(1)
		go func() {
			defer wg.Done()
			drive(ctx, p, prov, i, &t, &restarting)
		}()
	}
	wg.Wait()
	close(stopFaults)
	faultsDone.Wait()

	// Settle: every tool call the page received must be settled exactly once.
	for _, p := range pages {
		p.ensure()
	}
	time.Sleep(3 * time.Second)
	for _, p := range pages {
		p.mu.Lock()
		for id, n := range p.handled {
			if n > 1 {
				t.dup++
			}
			switch s := p.settled[id]; {
			case s == 0:
				t.lost++
				fmt.Printf("lost: %s call %s (%s) never settled\n", p.id, id, p.calls[id])
			case s > 1:
				t.dup++
			}
		}
		t.dup += int64(p.dups)
		p.mu.Unlock()
		p.call(wire.MethodEndSession, wire.SessionParams{SessionID: p.id})
	}
	for _, p := range pages {
		p.disconnect() // the pages go away: Core should hold nothing for them
	}
	time.Sleep(3 * time.Second)
	end, err := c.counts()
	if err != nil {
		return false, err
	}
	// A session made for a createSession whose answer was lost is a
	// detached session like any other (autoEndOnDisconnect false): Core
	// keeps it, and its agent, for the resume window, then ends it. Wait
	// that long for those, at most one per lost answer, before judging.
	if n := lostCreates.Load(); n > 0 && end.LiveSessions > 0 && end.LiveSessions <= int(n) {
		fmt.Printf("waiting up to %s (the resume window) for %d session(s) whose createSession answer was lost\n", *resumeWin+15*time.Second, end.LiveSessions)
		for deadline := time.Now().Add(*resumeWin + 15*time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
			if end, err = c.counts(); err != nil || end.LiveSessions == 0 {
				break
			}
		}
		time.Sleep(2 * time.Second)
		if end, err = c.counts(); err != nil {
			return false, err
		}
	}
	c.stop(syscall.SIGTERM)
	leftDirs, _ := os.ReadDir(filepath.Join(state, "sessions"))
	leftProcs := 0
	for _, p := range pages {
		leftProcs += len(tagged(wire.EnvThreadID + "=" + p.id))
	}
	// Anything Core started (agents, their node, pedelec mcp, tool-call)
	// has the session's directory under the state directory on its PATH.
	strays := stateProcs(state)
	for _, s := range strays {
		fmt.Println("left running:", s)
	}
	leftProcs = max(leftProcs, len(strays))
	var truncated, resumes, cancelled int
	for _, p := range pages {
		truncated += p.truncate
		resumes += p.resumes
		cancelled += p.cancelled
	}
	fmt.Printf("faults: %d Core restarts, %d page disconnects, %d provider kills; %d resumes, %d truncations\n",
		restarts.Load(), disconnects.Load(), providerKills.Load(), resumes, truncated)
	fmt.Printf("calls: ran %d, answered %d, failed with a clear code %d (late results: the agent saw TOOL_TIMEOUT); settled as cancelled %d\n", t.issued, t.ok, t.failedClear, cancelled)
	t.codes.Range(func(k, v any) bool { fmt.Printf("  %s: %d\n", k, atomic.LoadInt64(v.(*int64))); return true })
	fmt.Printf("lost %d, duplicated %d, hung %d\n", t.lost, t.dup, t.hung)
	createFailures.Range(func(k, v any) bool {
		fmt.Printf("  createSession failed (page tried again): %s: %d\n", k, atomic.LoadInt64(v.(*int64)))
		return true
	})
	resumeFailures.Range(func(k, v any) bool {
		fmt.Printf("  resume failed (page reconnected and tried again): %s: %d\n", k, atomic.LoadInt64(v.(*int64)))
		return true
	})
	fmt.Printf("Core at the end (debug endpoint): goroutines %d (at start %d), open files %d (at start %d), live sessions %d, pending calls %d, provider processes %d, work dirs %d\n",
		end.Goroutines, base.Goroutines, end.OpenFiles, base.OpenFiles, end.LiveSessions, end.PendingCalls, end.ProviderProcs, end.WorkDirs)
	fmt.Printf("after stop: leftover processes %d, leftover work dirs %d\n", leftProcs, len(leftDirs))
	// A Core built with -race reports races in its log; a panic is a bug
	// whatever the soak saw.
	coreLog, _ := os.ReadFile(logf.Name())
	races, panics := strings.Count(string(coreLog), "WARNING: DATA RACE"), strings.Count(string(coreLog), "\npanic:")
	fmt.Printf("Core's log: %d data races, %d panics\n", races, panics)
	good := races == 0 && panics == 0 && t.lost == 0 && t.dup == 0 && t.hung == 0 && leftProcs == 0 && len(leftDirs) == 0 &&
		end.LiveSessions == 0 && end.PendingCalls == 0 && end.ProviderProcs == 0 && end.Goroutines <= base.Goroutines+5 && end.OpenFiles <= base.OpenFiles+5
	if ctx.Err() != nil {
		fmt.Println("the soak hit its -duration before every session made its calls")
		good = false
	}
	fmt.Println(map[bool]string{true: "PASS", false: "FAIL"}[good])
	return good, nil
}

// drive runs one session's turns until it made its calls.
func drive(ctx context.Context, p *page, prov string, n int, t *tally, restarting *sync.RWMutex) {
	for p.id == "" {
		if ctx.Err() != nil {
			return
		}
		restarting.RLock()
		if p.dial() == nil {
			auto := false
			raw, err := p.call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: prov, Skills: json.RawMessage(skills), AutoEndOnDisconnect: &auto})
			if err == nil {
				var info wire.SessionInfo
				json.Unmarshal(raw, &info)
				p.mu.Lock()
				p.id = info.SessionID
				p.mu.Unlock()
			} else {
				v, _ := createFailures.LoadOrStore(err.Error(), new(int64))
				atomic.AddInt64(v.(*int64), 1)
				if err.Code == wire.CodeCoreUnreachable && err.Message != "send failed" {
					// Sent, and the answer lost with the socket: Core may
					// have made the session, which nobody can name now.
					lostCreates.Add(1)
				}
				p.disconnect()
			}
		}
		restarting.RUnlock()
		if p.id == "" {
			time.Sleep(200 * time.Millisecond)
		}
	}
	made, next := 0, 0 // calls that ran to an answer; ids used
	for made < *nCalls && ctx.Err() == nil {
		if err := p.ensure(); err != nil {
			time.Sleep(time.Duration(100+rand.IntN(300)) * time.Millisecond)
			continue
		}
		var lines []string
		var ids []string
		for k := 0; k < *perTurn && made+k < *nCalls; k++ {
			id := fmt.Sprintf("%d-%d", n, next)
			next++
			ids = append(ids, id)
			verb := "call"
			if prov == acpProvider && rand.Float64() < *cancelAt {
				verb = "cancel"
				cancelIDs.Store(id, true)
			}
			lines = append(lines, fmt.Sprintf(`%s record {"id":%q}`, verb, id))
		}
		raw, err := p.call(wire.MethodSendText, wire.SendTextParams{SessionID: p.id, Text: strings.Join(lines, "\n")})
		if err != nil {
			// Busy, Core stopping (TURN_INTERRUPTED) or unreachable: as a
			// user would, wait a moment before sending again.
			time.Sleep(time.Duration(100+rand.IntN(200)) * time.Millisecond)
			continue // not started: nothing issued
		}
		var started wire.TurnStarted
		json.Unmarshal(raw, &started)
		// Wait for the turn's done, through reconnects.
		deadline := time.Now().Add(90 * time.Second)
		var done wire.DoneData
		got := false
		for time.Now().Before(deadline) {
			p.mu.Lock()
			done, got = p.done[started.TurnID]
			p.mu.Unlock()
			if got {
				break
			}
			p.ensure()
			time.Sleep(50 * time.Millisecond)
		}
		if !got {
			atomic.AddInt64(&t.hung, int64(len(ids)))
			p.mu.Lock()
			// No event of the turn at all: Core never recorded it (issue 20:
			// a turn started while Core was stopping).
			fmt.Printf("hung: %s turn %s never ended (connected %v, last seq %d, events of the turn %d, resumes %d, last resume error %q)\n",
				p.id, started.TurnID, p.ws != nil, p.seq, p.seen[started.TurnID], p.resumes, p.resumeErr)
			p.mu.Unlock()
			return
		}
		p.mu.Lock()
		chat := ""
		if b := p.chat[started.TurnID]; b != nil {
			chat = b.String()
		}
		p.mu.Unlock()
		// Each call line the agent ran printed one JSON line; the turn's chat must hold it once.
		for k, id := range ids {
			want := fmt.Sprintf(`{"ok":true,"result":{"id":%q}}`, id)
			switch c := strings.Count(chat, want); {
			case c == 1:
				atomic.AddInt64(&t.issued, 1)
				atomic.AddInt64(&t.ok, 1)
				made++
			case c > 1:
				atomic.AddInt64(&t.issued, 1)
				atomic.AddInt64(&t.dup, 1)
				made++
			case done.OK:
				made++
				// A completed turn whose chat lacks a call's line: the call failed
				// (its line then holds an error code) or the chat was lost.
				atomic.AddInt64(&t.issued, 1)
				if code := failedCode(chat, k); code != "" {
					atomic.AddInt64(&t.failedClear, 1)
					t.code(code)
				} else {
					atomic.AddInt64(&t.lost, 1)
					fmt.Printf("lost chat: %s turn %s call %s; chat %q\n", p.id, started.TurnID, id, chat)
				}
			default:
				// The turn failed (restart, provider killed) before this call
				// answered; the turn's error says why, and the call is made
				// again in the next turn, as a user would resend.
				if done.Error == nil || done.Error.Code == "" {
					atomic.AddInt64(&t.lost, 1)
				} else {
					t.code("cut off by turn " + string(done.Error.Code))
				}
			}
		}
	}
}

// failedCode finds the error code the agent saw for the idx-th call of a turn.
func failedCode(chat string, idx int) string {
	lines := strings.Split(chat, "\n")
	// The agent's outputs are in call order: the n-th JSON line is the n-th call.
	k := 0
	for _, l := range lines {
		// An agent's own note may come first on the line: Copilot's
		// "Info: Disabled tools: ..." before the first answer.
		i := strings.IndexByte(l, '{')
		if i < 0 {
			continue
		}
		l = l[i:]
		if k == idx {
			var r wire.AgentResult
			if json.Unmarshal([]byte(l), &r) == nil && r.Error != nil {
				return string(r.Error.Code)
			}
			return ""
		}
		k++
	}
	return ""
}

// ---- processes ----

func tagged(entry string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(d + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == entry {
				var pid int
				fmt.Sscanf(filepath.Base(d), "%d", &pid)
				if stat, err := os.ReadFile(d + "/stat"); err == nil {
					if i := strings.LastIndexByte(string(stat), ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
						break
					}
				}
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// anyTagged is some live agent of this soak's Core (the script agent, the
// parent of tool-call; an ACP agent), or 0: one whose command line holds
// match and whose environment names this soak's state directory, so two
// soaks on one machine do not kill each other's agents.
func anyTagged(state, match string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	rand.Shuffle(len(dirs), func(i, j int) { dirs[i], dirs[j] = dirs[j], dirs[i] })
	for _, d := range dirs {
		cmdline, err := os.ReadFile(d + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), match) {
			continue
		}
		env, err := os.ReadFile(d + "/environ")
		if err != nil || !strings.Contains(string(env), state) {
			continue
		}
		// Between fork and exec, an agent's `pedelec tool-call` child still
		// shows the agent's command line: killing it would kill a call the
		// agent then reports as "signal: killed", not the agent.
		if stat, err := os.ReadFile(d + "/stat"); err == nil {
			ppid := "0"
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 {
				if f := strings.Fields(string(stat[i+1:])); len(f) > 1 {
					ppid = f[1] // after the state
				}
			}
			if parent, err := os.ReadFile("/proc/" + ppid + "/cmdline"); err == nil && strings.Contains(string(parent), match) {
				continue
			}
		}
		var pid int
		fmt.Sscanf(filepath.Base(d), "%d", &pid)
		return pid
	}
	return 0
}

// stateProcs are the live processes (not zombies) whose environment names
// the state directory, with their command lines.
func stateProcs(state string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if filepath.Base(d) == fmt.Sprint(os.Getpid()) {
			continue
		}
		env, err := os.ReadFile(d + "/environ")
		if err != nil || !strings.Contains(string(env), state) {
			continue
		}
		if stat, err := os.ReadFile(d + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
				continue
			}
		}
		cmdline, _ := os.ReadFile(d + "/cmdline")
		out = append(out, filepath.Base(d)+": "+strings.ReplaceAll(strings.TrimSpace(string(cmdline)), "\x00", " "))
	}
	return out
}
