package e2e

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A resume that Core refuses for its lastSeq (too far past the session's
// last event) must leave the session as it was: before, the refusal came
// after the session's page was let go and its resume-window timer
// stopped, so a page that made its own sessions, left, and resumed each
// with an invented lastSeq left sessions that no page held and no timer
// would end: at --max-sessions every other app was refused (the fourth
// hostile review of 2026-12-02).
func TestRefusedResumeLeavesTheSessionToExpire(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	const hostile, victim = "http://127.0.0.1:5173", "http://127.0.0.1:5174"
	srv := testenv.Serve(t, []string{"--allow-origin", hostile, "--allow-origin", victim,
		"--max-sessions", "2", "--resume-window", "1s"})
	keep := false
	p := wspage.Dial(t, srv.WSURL, hostile)
	var ids []string
	for range 2 {
		info := p.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &keep})
		ids = append(ids, info.SessionID)
	}
	p.Close()
	again := wspage.Dial(t, srv.WSURL, hostile)
	huge := int64(math.MaxInt64)
	for _, id := range ids {
		if _, werr := again.Call(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: id, LastSeq: &huge}); werr == nil || werr.Code != wire.CodeInvalidInput {
			t.Fatalf("resume of %s with lastSeq %d = %v, want INVALID_INPUT", id, huge, werr)
		}
	}
	again.Close()
	// Both sessions are detached: the resume window ends them, and the
	// other app gets its session.
	v := wspage.Dial(t, srv.WSURL, victim)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, werr := v.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills)})
		if werr == nil {
			return
		}
		if werr.Code != wire.CodeTooManySessions || time.Now().After(deadline) {
			t.Fatalf("the other app's createSession, 10 s after the hostile page left (resume window 1 s): %v", werr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
