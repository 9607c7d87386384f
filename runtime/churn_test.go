package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/peercred"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The session domain's locks have one order (runtime/session/table.go, above Table). A path that takes
// two of them the other way round wedges Core for good the first time two
// goroutines meet on it: issue 20 found pages that create a session and
// drop their socket in a loop hanging /healthz within a second. This test
// is that traffic and more, from many goroutines at once, against a real
// Core on loopback; a watchdog fails it, with every goroutine's stack, as
// soon as Core stops answering.

// churnWedgeAfter is how long a /healthz or debug request may take before
// Core counts as wedged. Generous: a loaded machine running -race must not
// fail the test, and a deadlock never answers at all.
const churnWedgeAfter = 5 * time.Second

// quickProvider's turns end by themselves within a few milliseconds, after
// a chat delta and sometimes a tool call nobody answers, so turns end
// (and take the session's locks) all through the churn.
type quickProvider struct{}

func (quickProvider) Name() string { return "quick" }
func (quickProvider) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{Name: "quick", Available: true}
}
func (quickProvider) RunTurn(ctx context.Context, turn *provider.Turn, emit func(provider.Event)) error {
	emit(provider.Event{ChatDelta: "working", ProviderThreadID: "thread-" + turn.SessionID})
	if rand.IntN(3) == 0 {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
		turn.Calls.CallTool(cctx, "echo", json.RawMessage(`{"x":1}`))
		cancel()
	}
	select {
	case <-time.After(time.Duration(rand.IntN(5)) * time.Millisecond):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// churnPage is a page that drops its socket without a closing handshake,
// as a closed tab or a killed browser does. It reads synchronously: only
// while it waits for an answer.
type churnPage struct {
	ws   *websocket.Conn
	next int64
	seq  int64 // the highest event seq seen
}

func dialChurnPage(ctx context.Context, url, origin string) (*churnPage, error) {
	ctx, cancel := context.WithTimeout(ctx, churnWedgeAfter)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(16 << 20)
	return &churnPage{ws: ws}, nil
}

// send writes one request and returns its id without waiting.
func (p *churnPage) send(method string, params any) (int64, error) {
	p.next++
	raw, _ := json.Marshal(params)
	frame, _ := json.Marshal(wire.Request{Type: wire.FrameRequest, ID: p.next, Method: method, Params: raw})
	ctx, cancel := context.WithTimeout(context.Background(), churnWedgeAfter)
	defer cancel()
	return p.next, p.ws.Write(ctx, websocket.MessageText, frame)
}

// call sends one request and reads until its answer; nil, nil when the
// socket failed first (Core may close it: that is churn too).
func (p *churnPage) call(method string, params any) (json.RawMessage, *wire.Error) {
	id, err := p.send(method, params)
	if err != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), churnWedgeAfter)
	defer cancel()
	for {
		_, data, err := p.ws.Read(ctx)
		if err != nil {
			return nil, nil
		}
		var head struct {
			Type   string          `json:"type"`
			ID     int64           `json:"id"`
			Seq    int64           `json:"seq"`
			OK     bool            `json:"ok"`
			Result json.RawMessage `json:"result"`
			Error  *wire.Error     `json:"error"`
		}
		if json.Unmarshal(data, &head) != nil {
			continue
		}
		if head.Type == wire.FrameEvent {
			p.seq = max(p.seq, head.Seq)
			continue
		}
		if head.Type == wire.FrameResponse && head.ID == id {
			if !head.OK {
				return nil, head.Error
			}
			return head.Result, nil
		}
	}
}

func (p *churnPage) drop() { p.ws.CloseNow() }

// churnPool is the sessions that outlive their page (autoEndOnDisconnect
// false), for other pages to resume, end and call through MCP.
type churnPool struct {
	created, resumed, ended atomic.Int64 // what the churn did, so a run that did nothing fails

	mu  sync.Mutex
	ids []string
}

func (p *churnPool) add(id string) {
	p.created.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids = append(p.ids, id)
	if len(p.ids) > 64 {
		p.ids = p.ids[1:]
	}
}

func (p *churnPool) pick() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		return ""
	}
	return p.ids[rand.IntN(len(p.ids))]
}

// churnSkills: echo is what quickProvider and the MCP calls ask for.
const churnSkills = `{"guidance": "Churn.", "tools": [
 {"name": "echo", "description": "Echo.", "argsSchema": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}, "timeoutMs": 50}
]}`

// churnOnce is one page's life: it opens a socket, does a few random
// things, and goes away, mostly without saying goodbye.
func churnOnce(url, origin string, pool *churnPool) {
	p, err := dialChurnPage(context.Background(), url, origin)
	if err != nil {
		return
	}
	defer p.drop()
	providers := []string{"quick", "hold", "mcp"}
	for range 1 + rand.IntN(3) {
		switch rand.IntN(6) {
		case 0: // create and drop the socket before the answer
			auto := rand.IntN(2) == 0
			p.send(wire.MethodCreateSession, wire.CreateSessionParams{Provider: providers[rand.IntN(3)], Skills: json.RawMessage(churnSkills), AutoEndOnDisconnect: &auto})
			return
		case 1, 2: // create, maybe start a turn
			auto := rand.IntN(2) == 0
			raw, werr := p.call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: providers[rand.IntN(3)], Skills: json.RawMessage(churnSkills), AutoEndOnDisconnect: &auto})
			if raw == nil || werr != nil {
				continue
			}
			var info wire.SessionInfo
			json.Unmarshal(raw, &info)
			if auto {
				pool.created.Add(1)
			} else {
				pool.add(info.SessionID)
			}
			if rand.IntN(2) == 0 {
				p.call(wire.MethodSendText, wire.SendTextParams{SessionID: info.SessionID, Text: "go"})
			}
		case 3: // resume someone's session, as a reconnecting page
			id := pool.pick()
			if id == "" {
				continue
			}
			var last *int64
			if rand.IntN(2) == 0 {
				n := int64(rand.IntN(8))
				last = &n
			}
			if raw, _ := p.call(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: id, LastSeq: last}); raw != nil {
				pool.resumed.Add(1)
			}
			if rand.IntN(2) == 0 {
				p.call(wire.MethodPrepare, wire.SessionParams{SessionID: id})
			}
		case 4: // end one
			if id := pool.pick(); id != "" {
				if raw, _ := p.call(wire.MethodEndSession, wire.SessionParams{SessionID: id}); raw != nil {
					pool.ended.Add(1)
				}
			}
		case 5: // a clean goodbye for once
			p.ws.Close(websocket.StatusNormalClosure, "")
			return
		}
	}
}

// churnWatchdog asks Core for /healthz and its debug counts (which take
// every session's lock) until stop; the first request that does not
// answer within churnWedgeAfter is reported with every goroutine's stack.
func churnWatchdog(srvURL, token string, stop <-chan struct{}, wedged chan<- string) {
	client := &http.Client{Timeout: churnWedgeAfter, Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(path string) error {
		req, _ := http.NewRequest("GET", srvURL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: HTTP %d", path, resp.StatusCode)
		}
		return nil
	}
	for {
		select {
		case <-stop:
			return
		case <-time.After(20 * time.Millisecond):
		}
		for _, path := range []string{"/healthz", DebugPath} {
			if err := get(path); err != nil {
				wedged <- fmt.Sprintf("%s did not answer within %s (%v); goroutines:\n%s", path, churnWedgeAfter, err, goroutineStacks(2))
				return
			}
		}
	}
}

// goroutineStacks is every goroutine's stack; debug 1 groups identical ones.
func goroutineStacks(debug int) string {
	var b strings.Builder
	pprof.Lookup("goroutine").WriteTo(&b, debug)
	const most = 256 << 10
	if b.Len() > most {
		return b.String()[:most] + "\n... (cut)"
	}
	return b.String()
}

// awaitGoroutines waits until no more than want goroutines run, and
// otherwise returns the stacks of those that do.
func awaitGoroutines(want int, within time.Duration) (leaked string) {
	deadline := time.Now().Add(within)
	for {
		n := goruntime.NumGoroutine()
		if n <= want {
			return ""
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("%d goroutines, %d before the churn:\n%s", n, want, goroutineStacks(1))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestChurnNeverWedgesCore(t *testing.T) {
	churn := 5 * time.Second
	if testing.Short() {
		churn = 2 * time.Second
	}
	core, err := NewCore(Options{
		StateDir:     t.TempDir(),
		Providers:    provider.NewRegistry("", quickProvider{}, holdProvider{}, provider.NewMCP()),
		Logger:       log.New(io.Discard),
		Executable:   "/bin/false",
		ResumeWindow: 300 * time.Millisecond, // detached sessions end by their timer during the churn too
		Limits:       Limits{Sessions: 48, SessionsPerConnection: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(core.Handler(Assets{}))
	srv.Config.ConnContext = peercred.ConnContext
	srv.Start()
	core.coreURL = srv.URL
	var isWedged atomic.Bool
	t.Cleanup(func() {
		if isWedged.Load() {
			return // Shutdown and srv.Close would wait for Core forever
		}
		core.Shutdown(context.Background())
		srv.Close()
	})
	// Core's own goroutines (the persist.Writer, the MCP watcher) are running:
	// what the churn starts must all be gone again afterwards.
	time.Sleep(50 * time.Millisecond)
	baseline := goruntime.NumGoroutine()

	stop, stopWatch := make(chan struct{}), make(chan struct{})
	wedged := make(chan string, 1)
	watching := make(chan struct{})
	go func() { churnWatchdog(srv.URL, core.token, stopWatch, wedged); close(watching) }()
	failWedged := func(report string) {
		isWedged.Store(true)
		t.Fatalf("Core wedged under churn: %s", report)
	}
	pool := &churnPool{}
	var workers sync.WaitGroup
	for range 12 {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				churnOnce(wsURL(srv), srv.URL, pool)
			}
		}()
	}
	// Someone outside the pages: the MCP hub and Core's counters.
	workers.Add(1)
	go func() {
		defer workers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if id := pool.pick(); id != "" {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
				mcpCall(core.mcp, ctx, id, "echo", json.RawMessage(`{"x":1}`))
				cancel()
			}
			core.mcp.Snapshot()
			core.SessionCount()
		}
	}()

	select {
	case report := <-wedged:
		failWedged(report)
	case <-time.After(churn):
	}
	close(stop)
	finished := make(chan struct{})
	go func() { workers.Wait(); close(finished) }()
	select {
	case <-finished:
	case report := <-wedged:
		failWedged(report)
	case <-time.After(3 * churnWedgeAfter):
		isWedged.Store(true)
		t.Fatalf("the churn's pages did not finish; goroutines:\n%s", goroutineStacks(2))
	}

	t.Logf("churn: %d sessions created, %d resumed, %d ended by their page", pool.created.Load(), pool.resumed.Load(), pool.ended.Load())
	if pool.created.Load() < 10 || pool.resumed.Load() == 0 {
		t.Fatal("the churn hardly ran: it proves nothing")
	}

	// The pages are gone; sessions they left end within the resume window.
	// The watchdog still runs: Core may wedge on these ends too.
	deadline := time.Now().Add(10 * time.Second)
	for live := core.opts.Limits.Sessions; live > 0; time.Sleep(20 * time.Millisecond) {
		select {
		case report := <-wedged:
			failWedged(report)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still live after every page left", live)
		}
		counted := make(chan int, 1)
		go func() { counted <- core.SessionCount() }()
		select {
		case live = <-counted:
		case report := <-wedged:
			failWedged(report)
		}
	}
	close(stopWatch)
	select {
	case <-watching:
	case report := <-wedged:
		failWedged(report)
	}
	if leaked := awaitGoroutines(baseline, 10*time.Second); leaked != "" {
		t.Fatalf("goroutines leaked by the churn: %s", leaked)
	}
}
