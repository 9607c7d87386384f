package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// An honest agent is never stopped for the volume of what it notifies:
// only for what it makes Core hold. These are the agents the bound once
// stopped although Core had handled, or would soon handle, everything
// they sent.

// peakHeap samples Core's heap (this process: the agents are children)
// until stop is closed; it returns the growth over the heap at the start.
func peakHeap(stop <-chan struct{}) func() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak.Load() {
				peak.Store(ms.HeapAlloc - base)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { <-done; return peak.Load() }
}

// An agent that sends extension notifications (_vendor/heartbeat), one of
// a method nobody handles, and session/updates the library cannot read,
// 203 a turn for 4 turns: more than acpMaxQueuedNotes over its life,
// each handled (or dropped by the library) at once. No turn fails, and
// its extension request is answered as before: method not found.
func TestACPNotificationsOfAnyKindCountAsHandled(t *testing.T) {
	a := hostileACP(t, "ext")
	dir := t.TempDir()
	for i := range 4 {
		r, err := runACP(t, a, context.Background(), fakeTurn(t, dir, "s1", "", "go"))
		if err != nil {
			t.Fatalf("turn %d, after %d notifications: %v", i+1, i*203, err)
		}
		if got := r.text(); got != "ext -32601; " {
			t.Fatalf("turn %d: chat %q, want the extension request answered method-not-found", i+1, got)
		}
	}
}

// A restored agent replays its session's whole history at session/load,
// in one burst, before it answers: 3,000 updates of a long conversation.
// The load succeeds and nothing of the replay is shown.
func TestACPLongReplayAtLoadIsNotStopped(t *testing.T) {
	dir := t.TempDir()
	first := fakeACP(t, nil)
	r1, err := runACP(t, first, context.Background(), fakeTurn(t, dir, "s1", "", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	first.CloseSession("s1")

	second := fakeACP(t, map[string]string{fakeACPReplayEnv: "3000"})
	began := time.Now()
	r2, err := runACP(t, second, context.Background(), fakeTurn(t, dir, "s1", r1.thread, "recall"))
	if err != nil {
		t.Fatalf("the turn after a replay of 3,000 updates: %v", err)
	}
	t.Logf("load with a replay of 3,000 updates and a turn: %s", time.Since(began).Round(time.Millisecond))
	if !strings.HasPrefix(r2.text(), "prompts=101") || r2.thread != r1.thread {
		t.Errorf("after the replay: %q on %s, want the loaded session %s (prompts=101), no replay shown", r2.text(), r2.thread, r1.thread)
	}
}

// A fast model streams 3,000 small chunks at once while Core is busy (a
// millisecond every fifth chunk: a loaded machine, a page's event log):
// every chunk reaches the page, and the turn ends well.
func TestACPBurstOfChunksInATurnIsNotStopped(t *testing.T) {
	a := fakeACP(t, nil)
	r := &acpRecorder{}
	var n atomic.Int64
	slow := func(ev Event) {
		if ev.ChatDelta != "" && n.Add(1)%5 == 0 {
			time.Sleep(time.Millisecond)
		}
		r.emit(ev)
	}
	if err := a.RunTurn(context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "burst"), slow); err != nil {
		t.Fatalf("a burst of 3,000 chunks: %v", err)
	}
	if got := r.text(); got != strings.Repeat("tok ", 3000)+"done" {
		t.Errorf("chat: %d bytes, want every chunk (%d)", len(got), 3000*4+4)
	}
}

// A permission request behind 3,000 chunks Core handles slowly is decided
// once the tool_call just before it is handled, by that handling (not by
// acpOrderWait), and allows the page's tool.
func TestACPPermissionBehindAFloodIsDecidedInOrder(t *testing.T) {
	defer func(d time.Duration) { acpOrderWait = d }(acpOrderWait)
	acpOrderWait = time.Minute
	a := hostileACP(t, "floodperm")
	r := &acpRecorder{}
	var n atomic.Int64
	slow := func(ev Event) {
		if ev.ChatDelta != "" && n.Add(1)%10 == 0 {
			time.Sleep(time.Millisecond)
		}
		r.emit(ev)
	}
	if err := a.RunTurn(context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "go"), slow); err != nil {
		t.Fatalf("turn: %v", err)
	}
	if got := r.text(); got != strings.Repeat("tok ", 3000)+"picked yes" {
		t.Errorf("chat ends %q, want every chunk and the page tool allowed", got[max(0, len(got)-40):])
	}
}

// An agent floods 100,000 chunks while the page holds the first one for
// two seconds: Core's goroutines and heap stay small while it waits (the
// agent waits too), and once the page goes on every chunk arrives and the
// turn ends well.
func TestACPFloodOfNotificationsIsBounded(t *testing.T) {
	a := hostileACP(t, "notes")
	base := runtime.NumGoroutine()
	stop := make(chan struct{})
	peak := peakGoroutines(stop)
	heap := peakHeap(stop)
	var got atomic.Int64
	emit := func(ev Event) {
		if ev.ChatDelta != "" && got.Add(1) == 1 {
			time.Sleep(2 * time.Second) // the page holds the first chunk
		}
	}
	err := a.RunTurn(context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "go"), emit)
	close(stop)
	grew := heap()
	t.Logf("goroutines: %d before, peak %d; heap grew at most %d KiB; %d chunks", base, peak.Load(), grew>>10, got.Load())
	if err != nil {
		t.Fatalf("turn: %v", err)
	}
	if got.Load() != 100000 {
		t.Errorf("%d chunks arrived, want 100,000", got.Load())
	}
	if peak.Load() > int64(base+64) {
		t.Errorf("goroutines peaked at %d, %d before", peak.Load(), base)
	}
	if grew > 64<<20 {
		t.Errorf("Core's heap grew by %d MiB while the page held a chunk", grew>>20)
	}
}

// The same with 64 chunks of 1 MiB: what waits is bounded in bytes as
// well as in number (before, 512 notifications of up to 10 MiB each could
// wait: 5 GiB).
func TestACPFloodOfBigNotificationsKeepsCoreSmall(t *testing.T) {
	a := hostileACP(t, "bignotes")
	stop := make(chan struct{})
	heap := peakHeap(stop)
	var got, bytes atomic.Int64
	emit := func(ev Event) {
		if ev.ChatDelta != "" {
			bytes.Add(int64(len(ev.ChatDelta)))
			if got.Add(1) == 1 {
				time.Sleep(3 * time.Second) // the page holds the first chunk
			}
		}
	}
	err := a.RunTurn(context.Background(), fakeTurn(t, t.TempDir(), "s1", "", "go"), emit)
	close(stop)
	grew := heap()
	t.Logf("heap grew at most %d MiB; %d chunks, %d MiB", grew>>20, got.Load(), bytes.Load()>>20)
	if err != nil {
		t.Fatalf("turn: %v", err)
	}
	if got.Load() != 64 || bytes.Load() != 64<<20 {
		t.Errorf("%d chunks (%d bytes) arrived, want 64 of 1 MiB", got.Load(), bytes.Load())
	}
	if grew > 48<<20 {
		t.Errorf("Core's heap grew by %d MiB while the page held a chunk", grew>>20)
	}
}

// An agent that floods and stops reading its stdin, while the page holds
// the first chunk for good: the turn's end (its context) stops the agent,
// and that frees everything Core had waiting on it: RunTurn returns and
// Core's goroutines come back.
func TestACPStoppedAgentFreesWhatWaitedOnIt(t *testing.T) {
	a := hostileACP(t, "deafnotes")
	release := make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(release) })
	var got atomic.Int64
	emit := func(ev Event) {
		if ev.ChatDelta != "" && got.Add(1) == 1 {
			<-release
		}
	}
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.RunTurn(ctx, fakeTurn(t, t.TempDir(), "s1", "", "go"), emit) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the turn did not end within 30 s of its context")
	}
	a.CloseSession("s1")
	once.Do(func() { close(release) })
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+8 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base+8 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after the agent was stopped, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

// The window against a stand-in for the library: it reads lines into a
// queue of 1024 (overflow closes it) and handles them in order, slowly,
// handing Core's marks back. Whatever the agent sends (small and large
// notifications, marks it forged), the queue never holds more than
// acpMaxQueuedNotes, nor their bytes more than acpMaxQueuedBytes (or one
// message), and everything arrives.
func TestACPWindowKeepsTheLibraryQueueBounded(t *testing.T) {
	gone := make(chan struct{})
	defer close(gone)
	b := newACPBound("unit", func() {}, gone)
	b.notes.maxBytes = 2 << 20 // fewer large messages reach it (the race detector is slow with them)
	agentR, agentW := io.Pipe()
	const sent = 4000
	small, large := strings.Repeat("p", 1<<10), strings.Repeat("P", 512<<10)
	go func() {
		for i := range sent {
			pad := small[:(i*7919)%len(small)]
			if i >= 2000 && i%50 == 0 { // the second half: large ones among them
				pad = large
			}
			method := "_x/note"
			if i%97 == 0 { // a forged mark: the agent does not know the key
				fmt.Fprintf(agentW, `{"jsonrpc":"2.0","method":%q,"params":{"key":"%032d","n":%d}}`+"\n", acpMarkMethod, 0, 1<<40)
				continue
			}
			fmt.Fprintf(agentW, `{"jsonrpc":"2.0","method":%q,"params":{"i":%d,"pad":"%s"}}`+"\n", method, i, pad)
		}
		agentW.Close()
	}()
	type item struct {
		line []byte
		head jsonrpcHead
	}
	queue := make(chan item, 1024)
	var overflow atomic.Bool
	var peakN, peakBytes, inBytes atomic.Int64
	go func() {
		defer close(queue)
		br := bufio.NewReader(b.reader(agentR))
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				var h jsonrpcHead
				json.Unmarshal(line, &h)
				n := inBytes.Add(int64(len(line)))
				select {
				case queue <- item{line, h}:
				default:
					overflow.Store(true)
					return
				}
				if int64(len(queue)) > peakN.Load() {
					peakN.Store(int64(len(queue)))
				}
				if n > peakBytes.Load() {
					peakBytes.Store(n)
				}
			}
			if err != nil {
				return
			}
		}
	}()
	notes, forged := 0, 0
	for it := range queue {
		if notes == 0 || notes == 1990 {
			time.Sleep(time.Second) // the handler held: the queue fills
		}
		if it.head.Method == acpMarkMethod {
			var p struct {
				Params json.RawMessage `json:"params"`
			}
			json.Unmarshal(it.line, &p)
			if !b.notes.handled(p.Params) {
				forged++
			}
		} else {
			notes++
		}
		inBytes.Add(-int64(len(it.line)))
	}
	t.Logf("%d notes, %d forged marks; the queue peaked at %d messages, %d KiB (bounds %d, %d KiB)", notes, forged, peakN.Load(), peakBytes.Load()>>10, b.notes.maxNotes, b.notes.maxBytes>>10)
	if overflow.Load() {
		t.Fatal("the library's queue overflowed")
	}
	if notes+forged != sent {
		t.Errorf("%d notifications arrived, %d sent", notes+forged, sent)
	}
	if peakN.Load() > b.notes.maxNotes {
		t.Errorf("the queue held %d messages, bound %d", peakN.Load(), b.notes.maxNotes)
	}
	if peakBytes.Load() > b.notes.maxBytes {
		t.Errorf("the queue held %d KiB, bound %d KiB", peakBytes.Load()>>10, b.notes.maxBytes>>10)
	}
}
