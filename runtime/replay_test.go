package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/page"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// awaitDetached waits until no page is attached to s.
func awaitDetached(t *testing.T, s *session.Session, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		attached := s.Attached() != nil
		if !attached {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session still has a page after %s", within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// awayWhileChatting opens a page, starts a held turn, lets the page see
// one chat event, takes the page away and emits missed chat events
// ("m0 ", "m1 ", ...) while no page is attached. It returns what a page
// resuming that session needs: the session, the held turn, its id and the
// last seq the first page handled.
func awayWhileChatting(t *testing.T, h *harness, missed int) (info wire.SessionInfo, ht *heldTurn, turnID string, last wire.Event) {
	t.Helper()
	p1 := h.page()
	info, s := h.session(p1, false)
	turnID, ht = h.send(p1, info.SessionID, "go")
	ht.emit(provider.Event{ChatDelta: "seen "})
	last = awaitEvent(t, p1, wire.EventChatDelta, turnID, nil)
	p1.Close()
	awaitDetached(t, s, 10*time.Second)
	for i := range missed {
		ht.emit(provider.Event{ChatDelta: fmt.Sprintf("m%d ", i)})
	}
	return info, ht, turnID, last
}

// resumeRaw sends resume_session (request id 1) on a plain WebSocket that
// reads nothing until the test does, so the test sees every frame as sent.
func resumeRaw(ctx context.Context, t *testing.T, h *harness, sessionID string, lastSeq int64) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.Dial(ctx, wsURL(h.srv), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {h.srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	req, _ := json.Marshal(wire.Request{Type: wire.FrameRequest, ID: 1, Method: wire.MethodResumeSession,
		Params: mustMarshal(t, wire.ResumeSessionParams{SessionID: sessionID, LastSeq: &lastSeq})})
	if err := ws.Write(ctx, websocket.MessageText, req); err != nil {
		t.Fatal(err)
	}
	return ws
}

// A page that missed more events than its outbox holds gets every one of
// them on resume, once and in seq order, and events emitted while the
// replay is still being written follow it; the page is not cut off.
func TestResumeReplaysManyMissedEventsOnceInOrder(t *testing.T) {
	const missed, live = 2000, 300 // more than 1024, and than the default log
	h := newHarness(t, func(o *Options) { o.EventLogSize = 2500 })
	info, ht, turnID, last := awayWhileChatting(t, h, missed)

	p2 := h.page()
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &last.Seq})
	for i := range live { // while the replay is still being written
		ht.emit(provider.Event{ChatDelta: fmt.Sprintf("l%d ", i)})
	}
	ht.finish <- nil
	p2.AwaitDone(turnID, 60*time.Second)

	if p2.Closed() {
		t.Fatal("Core closed the page that resumed")
	}
	events := p2.Events()
	var want strings.Builder
	for i := range missed {
		fmt.Fprintf(&want, "m%d ", i)
	}
	for i := range live {
		fmt.Fprintf(&want, "l%d ", i)
	}
	var got strings.Builder
	for i, e := range events {
		if e.Seq != last.Seq+1+int64(i) {
			t.Fatalf("event %d (%s) has seq %d, want %d: every missed event once, in order", i, e.Event, e.Seq, last.Seq+1+int64(i))
		}
		if e.Event == wire.EventChatDelta {
			var d wire.ChatDeltaData
			eventData(t, e, &d)
			got.WriteString(d.Text)
		}
	}
	if got.String() != want.String() {
		t.Errorf("chat after resume differs: got %d bytes, want %d", got.Len(), want.Len())
	}
	if len(events) < missed+live {
		t.Errorf("page got %d events after resume, want at least %d", len(events), missed+live)
	}
}

// A page that resumes and then stops reading is still cut off once the
// live events it leaves unread pile up: the replay does not lift the
// protection against a slow subscriber.
func TestStuckReaderIsCutOffAfterResume(t *testing.T) {
	h := newHarness(t, nil)
	info, ht, _, last := awayWhileChatting(t, h, 1000)
	s, _ := h.core.session(info.SessionID)

	// A page that asks to resume and never reads a frame.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resumeRaw(ctx, t, h, info.SessionID, last.Seq)
	var pc session.Page
	for deadline := time.Now().Add(10 * time.Second); pc == nil; time.Sleep(5 * time.Millisecond) {
		pc = s.Attached()
		if time.Now().After(deadline) {
			t.Fatal("the resume did not attach the page")
		}
	}

	// Enough live data to fill the socket's buffers, then more unread
	// frames than the outbox holds.
	big := strings.Repeat("x", 64<<10)
	for range 256 {
		ht.emit(provider.Event{ChatDelta: big})
	}
	for i := 0; i < 4*page.OutboxSize && !pc.Closed(); i++ {
		ht.emit(provider.Event{ChatDelta: "more "})
	}
	deadline := time.Now().Add(60 * time.Second)
	for !pc.Closed() {
		if time.Now().After(deadline) {
			t.Fatal("a page that stopped reading was not cut off")
		}
		time.Sleep(10 * time.Millisecond)
	}
	awaitDetached(t, s, 60*time.Second)
	ht.finish <- nil
}

func mustMarshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The resume_session response comes before the events it replays, as
// docs/protocol.md promises: the page learns the session (and its seq)
// first. The soak of issue 14 caught replayed events arriving first while
// the response waited for a database commit.
func TestResumeResponsePrecedesReplayedEvents(t *testing.T) {
	h := newHarness(t, nil)
	info, _, _, last := awayWhileChatting(t, h, 50)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws := resumeRaw(ctx, t, h, info.SessionID, last.Seq)
	next := last.Seq + 1
	for i := 0; next <= last.Seq+50; i++ {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		var f struct {
			Type string `json:"type"`
			ID   int64  `json:"id"`
			Seq  int64  `json:"seq"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if f.Type != wire.FrameResponse || f.ID != 1 {
				t.Fatalf("first frame after resume_session is %s, want the response: %s", f.Type, data)
			}
			continue
		}
		if f.Type != wire.FrameEvent || f.Seq != next {
			t.Fatalf("frame %d: %s, want the event with seq %d", i, data, next)
		}
		next++
	}
}
