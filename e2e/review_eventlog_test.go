package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A hostile approved page fills the event logs' total with sessions of its
// own; then every event of another app's session dropped that session's
// older events, down to its newest, so its page could no longer resume
// what it missed (the hostile review of 2026-12-02). The total is taken
// from the sessions that hold the most, not from whichever logs next.
func TestEventLogTotalNotTakenFromOtherSessions(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	const hostile, victim = "http://127.0.0.1:5173", "http://127.0.0.1:5174"
	srv := testenv.Serve(t, []string{"--allow-origin", hostile, "--allow-origin", victim,
		"--max-event-log-bytes", "400000", "--max-event-log-total-bytes", "600000"})
	keep := false
	h := wspage.Dial(t, srv.WSURL, hostile)
	// One session near its own bound, and one that logs small events
	// until the total is reached: from then on its own oldest go, and the
	// total stays within an event of its bound.
	small := strings.Repeat("say "+strings.Repeat("y", 1000)+"\n", 300)
	for _, text := range []string{"say " + strings.Repeat("x", 390000), small} {
		info := h.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &keep})
		if done := h.AwaitDone(h.SendText(info.SessionID, text), 60*time.Second); !done.OK {
			t.Fatalf("hostile turn: %+v", done.Error)
		}
	}
	v := wspage.Dial(t, srv.WSURL, victim)
	info := v.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &keep})
	for i := range 3 {
		if done := v.AwaitDone(v.SendText(info.SessionID, "say turn "+itoa(i)+" "+strings.Repeat("v", 700)), 60*time.Second); !done.OK {
			t.Fatalf("victim turn: %+v", done.Error)
		}
	}
	v.Close()
	again := wspage.Dial(t, srv.WSURL, victim)
	zero := int64(0)
	again.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &zero})
	time.Sleep(500 * time.Millisecond) // the replay is sent with the answer; let it land
	var seqs []int64
	for _, ev := range again.Events() {
		if ev.SessionID == info.SessionID {
			seqs = append(seqs, ev.Seq)
		}
	}
	t.Logf("replayed seqs %v", seqs)
	var chats []string
	for _, ev := range again.Events() {
		if ev.SessionID != info.SessionID {
			continue
		}
		if ev.Event == wire.EventEventsTruncated {
			t.Fatalf("the victim's session lost its history to another origin's sessions: %s", ev.Data)
		}
		if ev.Event == wire.EventChatDelta {
			d, _ := json.Marshal(ev.Data)
			chats = append(chats, string(d))
		}
	}
	if joined := strings.Join(chats, ""); !strings.Contains(joined, "turn 0") || !strings.Contains(joined, "turn 2") {
		t.Fatalf("the replay holds %d chat events, without every turn: %s", len(chats), joined)
	}
}
