package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A hostile ACP agent is this test binary too, speaking raw JSON-RPC
// (no library on its side, so nothing limits what it sends): with
// hostileACPEnv set it answers initialize and session/new, then, on
// session/prompt, does what the mode says:
//
//	requests  stops reading stdin and sends 100,000 permission requests
//	notes     sends 100,000 chat chunks (reading on), then end_turn
//	bignotes  sends 64 chat chunks of 1 MiB each, then end_turn
//	deafnotes stops reading stdin and sends 100,000 chat chunks, never
//	          answering
//	ext       each prompt: 200 extension notifications (_vendor/heartbeat),
//	          one of a method nobody knows, two session/updates the library
//	          cannot read, then an extension request (_vendor/ask); once
//	          that is answered, says the answer's error code, end_turn
//	floodperm 3,000 chat chunks, then the order mode's tool_call and
//	          permission request
//	stdin     stops reading stdin and sends a permission request every 2 ms
//	stray     a chunk for a session it was never given, then one with
//	          control and bidi characters for its own, then end_turn
//	order     as Copilot CLI calls an MCP tool: a chunk, a tool_call
//	          "pedelec-record" and at once a permission request titled
//	          "record" for it; then says the option Core picked, end_turn
const hostileACPEnv = "PEDELEC_HOSTILE_ACP"

func init() {
	mode := os.Getenv(hostileACPEnv)
	if mode == "" {
		return
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	var mu sync.Mutex
	send := func(format string, args ...any) {
		mu.Lock()
		fmt.Fprintf(out, format+"\n", args...)
		mu.Unlock()
	}
	flush := func() { mu.Lock(); out.Flush(); mu.Unlock() }
	perm := func(id int) {
		send(`{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"h-1","toolCall":{"toolCallId":"c%d","title":"rm -rf /","kind":"execute"},"options":[{"optionId":"no","name":"No","kind":"reject_once"}]}}`, id, id)
	}
	chunk := func(session, text string) {
		b, _ := json.Marshal(text)
		send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%s}}}}`, session, b)
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 16<<20)
	var prompt json.RawMessage // the order and floodperm modes' prompt, answered after the permission
	asks := 0                  // the ext mode's requests
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result struct {
				Outcome struct {
					OptionID string `json:"optionId"`
				} `json:"outcome"`
			} `json:"result"`
		}
		json.Unmarshal(sc.Bytes(), &m)
		if m.Method == "" && string(m.ID) == "500" && prompt != nil {
			chunk("h-1", "picked "+m.Result.Outcome.OptionID)
			send(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`, prompt)
		}
		if m.Method == "" && strings.HasPrefix(string(m.ID), "7") && prompt != nil {
			var answer struct {
				Error struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			json.Unmarshal(sc.Bytes(), &answer)
			chunk("h-1", fmt.Sprintf("ext %d; ", answer.Error.Code))
			send(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`, prompt)
		}
		switch m.Method {
		case "initialize":
			send(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}`, m.ID)
		case "session/new":
			send(`{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"h-1"}}`, m.ID)
		case "session/prompt":
			switch mode {
			case "requests":
				for i := 1000; i < 101000; i++ {
					perm(i)
				}
				flush()
				select {} // never reads stdin again
			case "notes":
				id := m.ID
				go func() {
					for i := 0; i < 100000; i++ {
						chunk("h-1", "x")
					}
					send(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`, id)
					flush()
				}()
			case "bignotes":
				id := m.ID
				big := strings.Repeat("y", 1<<20)
				go func() {
					for i := 0; i < 64; i++ {
						chunk("h-1", big)
					}
					send(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`, id)
					flush()
				}()
			case "deafnotes":
				for i := 0; i < 100000; i++ {
					chunk("h-1", "x")
				}
				flush()
				select {} // never reads stdin again
			case "ext":
				prompt = m.ID
				for i := 0; i < 200; i++ {
					send(`{"jsonrpc":"2.0","method":"_vendor/heartbeat","params":{"n":%d}}`, i)
				}
				send(`{"jsonrpc":"2.0","method":"vendor/notice","params":{}}`)
				send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"h-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":5}}}}`)
				send(`{"jsonrpc":"2.0","method":"session/update","params":"not an object"}`)
				asks++
				send(`{"jsonrpc":"2.0","id":%d,"method":"_vendor/ask","params":{}}`, 7000+asks)
			case "floodperm":
				prompt = m.ID
				for i := 0; i < 3000; i++ {
					chunk("h-1", "tok ")
				}
				send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"h-1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"pedelec-record","kind":"other","status":"pending"}}}`)
				send(`{"jsonrpc":"2.0","id":500,"method":"session/request_permission","params":{"sessionId":"h-1","toolCall":{"toolCallId":"c1","title":"record","kind":"other"},"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`)
			case "stdin":
				for i := 1000; ; i++ {
					perm(i)
					flush()
					time.Sleep(2 * time.Millisecond)
				}
			case "order":
				prompt = m.ID
				chunk("h-1", "calling; ")
				send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"h-1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"pedelec-record","kind":"other","status":"pending"}}}`)
				send(`{"jsonrpc":"2.0","id":500,"method":"session/request_permission","params":{"sessionId":"h-1","toolCall":{"toolCallId":"c1","title":"record","kind":"other"},"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`)
			case "stray":
				chunk("someone-else", "STRAY")
				chunk("h-1", "a\x1b[31mb\u202ec\u0007d\n")
				send(`{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`, m.ID)
			}
		}
		flush()
	}
	os.Exit(0)
}

func hostileACP(t *testing.T, mode string) *acpAgent {
	t.Helper()
	a := NewCustomACP("hostile", Settings{Executable: os.Args[0], Env: map[string]string{hostileACPEnv: mode}}).(*acpAgent)
	t.Cleanup(func() { a.CloseSession("s1") })
	return a
}

// peakGoroutines samples the goroutine count until stop is closed.
func peakGoroutines(stop <-chan struct{}) *atomic.Int64 {
	var peak atomic.Int64
	go func() {
		for {
			if n := int64(runtime.NumGoroutine()); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return &peak
}

// An agent that floods requests and stops reading its stdin is stopped
// once it has acpMaxInflight requests unanswered: its turn ends with
// PROVIDER_ERROR saying so, its process is gone, and Core's goroutines
// stayed within the bound (before, one per request: 239,202 in 40 s).
func TestACPFloodOfRequestsIsBounded(t *testing.T) {
	a := hostileACP(t, "requests")
	base := runtime.NumGoroutine()
	stop := make(chan struct{})
	peak := peakGoroutines(stop)
	var pid atomic.Int64
	go func() {
		for pid.Load() == 0 {
			pid.Store(int64(a.WarmPID("s1")))
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := runACP(t, a, context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "go"))
	close(stop)
	werr := wire.AsError(err)
	if werr.Code != wire.CodeProviderError || !strings.Contains(werr.Message, "requests Core had not answered") {
		t.Fatalf("turn: %v", err)
	}
	if p := pid.Load(); p > 0 {
		waitGone(t, int(p))
	}
	t.Logf("goroutines: %d before, peak %d (bound %d requests): %s", base, peak.Load(), acpMaxInflight, werr.Message)
	if peak.Load() > int64(base+acpMaxInflight+64) {
		t.Errorf("goroutines peaked at %d, %d before: not bounded by the %d requests", peak.Load(), base, acpMaxInflight)
	}
}

// An agent that stops reading its stdin is stopped within acpWriteTimeout
// of Core's next message to it, whatever else is bounded.
func TestACPAgentThatStopsReadingIsStopped(t *testing.T) {
	defer func(n int, d time.Duration) { acpMaxInflight, acpWriteTimeout = n, d }(acpMaxInflight, acpWriteTimeout)
	acpMaxInflight, acpWriteTimeout = 1<<20, time.Second
	a := hostileACP(t, "stdin")
	_, err := runACP(t, a, context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "go"))
	werr := wire.AsError(err)
	if werr.Code != wire.CodeProviderError || !strings.Contains(werr.Message, "stopped reading its stdin") {
		t.Fatalf("turn: %v", err)
	}
}

// An update for a session Core never gave the agent is not the page's
// chat: it is dropped, and said once.
func TestACPStrayUpdatesDroppedAndChatCleaned(t *testing.T) {
	a := hostileACP(t, "stray")
	r, err := runACP(t, a, context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "go"))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.text(); strings.Contains(got, "STRAY") || !strings.HasPrefix(got, "a") {
		t.Errorf("chat = %q, want the stray dropped", got)
	}
	if len(r.warns) != 1 || !strings.Contains(r.warns[0], "someone-else") {
		t.Errorf("warnings = %q", r.warns)
	}
}

// The library runs an agent's request at once, on a goroutine of its own,
// and its notifications in order on another: a permission request could
// be decided before the tool_call the agent sent just before it was seen.
// Copilot titles its request with the bare tool name ("record") and only
// its tool_call with the server's prefix ("pedelec-record"), so the call of
// a page tool was rejected as not one, and Copilot ended its turn with
// "Operation cancelled by user" (the ACP fault soak, 1 turn in ~10 runs).
// Here the handling of the chunk before the tool_call is held (the page
// slow to take it) until the permission is decided or a while has passed:
// the decision must wait for both and allow the call.
func TestACPPermissionWaitsForTheToolCallBeforeIt(t *testing.T) {
	defer func(d time.Duration) { acpOrderWait = d }(acpOrderWait)
	acpOrderWait = time.Minute // longer than the hold below: the wait must end by the handling, not by its bound
	a := hostileACP(t, "order")
	decided := make(chan struct{})
	var once sync.Once
	var warns []string
	var mu sync.Mutex
	emit := func(ev Event) {
		if ev.Warning != "" {
			mu.Lock()
			warns = append(warns, ev.Warning)
			mu.Unlock()
			once.Do(func() { close(decided) })
		}
		if ev.ChatDelta == "calling; " {
			select {
			case <-decided:
			case <-time.After(time.Second):
			}
		}
	}
	r := &acpRecorder{}
	err := a.RunTurn(context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "go"), func(ev Event) { emit(ev); r.emit(ev) })
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := r.text(); got != "calling; picked yes" {
		t.Errorf("the agent was answered %q, want the page tool allowed (picked yes); Core said %q", got, warns)
	}
}
