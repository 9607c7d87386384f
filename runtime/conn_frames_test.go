package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// batchedPage connects a page that asks for batched messages.
func (h *harness) batchedPage() *wspage.Page {
	h.t.Helper()
	return wspage.Dial(h.t, wsURL(h.srv)+"?"+wire.BatchQueryParam+"=1", h.srv.URL)
}

// wantContiguousSeqs checks that p got every event of the session once, in
// seq order, from 1.
func wantContiguousSeqs(t *testing.T, p *wspage.Page, sessionID string) int {
	t.Helper()
	n := 0
	for _, e := range p.Events() {
		if e.SessionID != sessionID {
			continue
		}
		n++
		if e.Seq != int64(n) {
			t.Fatalf("event %d (%s) has seq %d; want every seq once, in order", n, e.Event, e.Seq)
		}
	}
	return n
}

// Eight calls at once on a batch-capable connection: the hello comes first,
// frames queued together arrive as arrays, and the page still sees every
// event once, in seq order, and answers every call.
func TestBatchedConnectionCarriesEveryEventInOrder(t *testing.T) {
	h := newHarness(t, nil)
	p := h.batchedPage()
	p.Handle("echo", func(args json.RawMessage) any { return json.RawMessage(args) })
	info, _ := h.session(p, true)
	_, ht := h.send(p, info.SessionID, "go")

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := ht.call("echo", fmt.Sprintf(`{"x":%d}`, i))
			if err != nil || string(res) != fmt.Sprintf(`{"x":%d}`, i) {
				t.Errorf("call %d = %s, %v", i, res, err)
			}
		}()
	}
	wg.Wait()
	ht.finish <- nil
	awaitEvent(t, p, wire.EventDone, "", nil)

	frames := p.Frames()
	var hello wire.Hello
	if err := json.Unmarshal(frames[0], &hello); err != nil || hello.Type != wire.FrameHello || !hello.Batch ||
		hello.MaxBatchFrames != wire.MaxBatchFrames || hello.MaxMessageBytes != DefaultMaxMessageBytes {
		t.Fatalf("first frame = %s, want the hello", frames[0])
	}
	if n := wantContiguousSeqs(t, p, info.SessionID); n < 8*2+2 {
		t.Fatalf("%d events for 8 calls", n)
	}
	messages, arrays := p.Messages()
	if arrays == 0 || messages >= len(frames) {
		t.Fatalf("%d frames came in %d messages (%d arrays); want frames queued together in one array", len(frames), messages, arrays)
	}
	if errs := p.SubmitErrors(); len(errs) > 0 {
		t.Fatalf("submit errors: %v", errs)
	}
}

// A page that did not ask gets what it always got: no hello, one frame per
// message, and an array is not a request.
func TestUnbatchedConnectionIsUnchanged(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return json.RawMessage(args) })
	info, _ := h.session(p, true)
	_, ht := h.send(p, info.SessionID, "go")
	for i := range 3 {
		if _, err := ht.call("echo", fmt.Sprintf(`{"x":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	wantContiguousSeqs(t, p, info.SessionID)
	if err := p.Send([]byte(`[{"type":"request","id":7,"method":"list_providers","params":{}}]`)); err != nil {
		t.Fatal(err)
	}
	r, ok := p.AwaitResponse(0, 10*time.Second)
	if !ok || r.OK || r.Error.Code != wire.CodeInvalidInput {
		t.Fatalf("array on an unbatched connection answered %+v (%v)", r, ok)
	}
	frames := p.Frames()
	messages, arrays := p.Messages()
	if arrays != 0 || messages != len(frames) {
		t.Fatalf("%d frames in %d messages, %d arrays; want one frame per message", len(frames), messages, arrays)
	}
	for _, f := range frames {
		if strings.Contains(string(f), `"type":"hello"`) {
			t.Fatalf("unbatched page got a hello: %s", f)
		}
	}
	if _, ok := p.AwaitResponse(7, 100*time.Millisecond); ok {
		t.Fatal("a request inside an array ran on an unbatched connection")
	}
}

// Requests in one array run in order, each answered by its id; a bad one
// gets its own error naming its index and does not stop the others.
func TestBatchedRequestsAnsweredEach(t *testing.T) {
	h := newHarness(t, nil)
	p := h.batchedPage()
	msg := `[{"type":"request","id":101,"method":"list_providers","params":{}},` +
		`{"type":"request","id":102,"method":"no_such_method"},` +
		`17,` +
		`{"type":"event","id":104},` +
		`{"type":"request","id":105,"method":"list_providers"}]`
	if err := p.Send([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{101, 105} {
		if r, ok := p.AwaitResponse(id, 10*time.Second); !ok || !r.OK {
			t.Fatalf("request %d: %+v (%v)", id, r, ok)
		}
	}
	for _, c := range []struct {
		id    int64
		code  wire.Code
		index float64
	}{{102, wire.CodeUnknownMethod, 1}, {0, wire.CodeInvalidInput, 2}, {104, wire.CodeInvalidInput, 3}} {
		r, ok := p.AwaitResponse(c.id, 10*time.Second)
		if !ok || r.OK || r.Error.Code != c.code {
			t.Fatalf("element %v: %+v (%v), want %s", c.index, r, ok, c.code)
		}
		if d, _ := r.Error.Details.(map[string]any); d["index"] != c.index {
			t.Fatalf("element %v: details %v do not name its index", c.index, r.Error.Details)
		}
	}
	// Answers keep the order of the requests.
	var order []int64
	for _, f := range p.Frames() {
		var r wire.Response
		if json.Unmarshal(f, &r) == nil && r.Type == wire.FrameResponse {
			order = append(order, r.ID)
		}
	}
	if fmt.Sprint(order) != "[101 102 0 104 105]" {
		t.Fatalf("answers in order %v", order)
	}
}

// An array over the hello's limits runs none of its requests; each gets
// BATCH_TOO_LARGE. Far over them, the socket is closed.
func TestBatchOverLimitsRefused(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxMessageBytes = 4096 })
	request := func(id int, pad int) string {
		return fmt.Sprintf(`{"type":"request","id":%d,"method":"list_providers","params":{"pad":%q}}`, id, strings.Repeat("x", pad))
	}
	batch := func(ids []int, pad int) []byte {
		var parts []string
		for _, id := range ids {
			parts = append(parts, request(id, pad))
		}
		return []byte("[" + strings.Join(parts, ",") + "]")
	}

	p := h.batchedPage()
	var ids []int
	for i := 1; i <= wire.MaxBatchFrames+1; i++ {
		ids = append(ids, i)
	}
	for _, msg := range [][]byte{batch(ids, 0), batch([]int{201, 202}, 3000)} {
		if err := p.Send(msg); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range append(ids, 201, 202) {
		r, ok := p.AwaitResponse(int64(id), 10*time.Second)
		if !ok || r.OK || r.Error.Code != wire.CodeBatchTooLarge {
			t.Fatalf("request %d: %+v (%v), want BATCH_TOO_LARGE", id, r, ok)
		}
		d, _ := r.Error.Details.(map[string]any)
		if d["maxBatchFrames"] != float64(wire.MaxBatchFrames) || d["maxMessageBytes"] != float64(4096) || d["index"] == nil {
			t.Fatalf("request %d: details %v", id, r.Error.Details)
		}
	}

	ids = ids[:0]
	for i := 1; i <= (4*wire.MaxBatchFrames)+1; i++ {
		ids = append(ids, i)
	}
	if err := p.Send(batch(ids, 0)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !p.Closed() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !p.Closed() {
		t.Fatal("a page far over the batch limits kept its socket")
	}
}

// A resume replays the log in arrays too: every missed event once, in order.
func TestBatchedResumeReplaysInOrder(t *testing.T) {
	h := newHarness(t, nil)
	a := h.batchedPage()
	a.Handle("echo", func(args json.RawMessage) any { return json.RawMessage(args) })
	info, _ := h.session(a, false)
	_, ht := h.send(a, info.SessionID, "go")
	for i := range 5 {
		if _, err := ht.call("echo", fmt.Sprintf(`{"x":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	want := wantContiguousSeqs(t, a, info.SessionID)
	a.Close()

	b := h.batchedPage()
	zero := int64(0)
	b.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &zero})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && len(b.Events()) < want {
		time.Sleep(10 * time.Millisecond)
	}
	if got := wantContiguousSeqs(t, b, info.SessionID); got < want {
		t.Fatalf("resume replayed %d events, want %d", got, want)
	}
	if _, arrays := b.Messages(); arrays == 0 {
		t.Fatal("the replay came one frame per message")
	}
}

// The hello is a batch-capable socket's first message, alone, even when
// the page sends a request before reading anything (a page that trusts no
// Core yet does): packed into one array with that request's answer, it
// left the page without Core's proof, and the page kept no key.
func TestHelloIsTheFirstMessageAlone(t *testing.T) {
	h := newHarness(t, nil)
	for i := range 50 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ws, _, err := websocket.Dial(ctx, wsURL(h.srv)+"?"+wire.BatchQueryParam+"=1", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {h.srv.URL}}})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		req, _ := json.Marshal(wire.Request{Type: "request", ID: 1, Method: wire.MethodListProviders})
		if err := ws.Write(ctx, websocket.MessageText, req); err != nil {
			t.Fatal(err)
		}
		_, first, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var hello wire.Hello
		if json.Unmarshal(first, &hello) != nil || hello.Type != wire.FrameHello {
			t.Fatalf("connection %d: the first message is %.200s, want the hello alone", i, first)
		}
		ws.Close(websocket.StatusNormalClosure, "")
		cancel()
	}
}
