package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// stubbornProvider's turn says "before", and when cancelled, keeps going
// until released: a provider that outlives Core's shutdown deadline.
type stubbornProvider struct{ release chan struct{} }

func (stubbornProvider) Name() string { return "stubborn" }
func (stubbornProvider) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{Name: "stubborn", Available: true}
}
func (p stubbornProvider) RunTurn(ctx context.Context, _ *provider.Turn, emit func(provider.Event)) error {
	emit(provider.Event{ChatDelta: "before"})
	<-ctx.Done()
	<-p.release
	emit(provider.Event{ChatDelta: "late"})
	return ctx.Err()
}

// A turn that is still ending when Core's shutdown deadline passes must not
// show the page anything the state database will not have: such an event's
// seq is handed out again by the restarted Core, and the page, gating on
// seq, would drop the restarted Core's report of the turn's end and wait
// for it forever. The soak of issue 14 found 23 turns hung this way.
func TestEventsAfterShutdownDeadlineNotSentAndTurnEndsAfterRestart(t *testing.T) {
	state := t.TempDir()
	stubborn := stubbornProvider{release: make(chan struct{})}
	withStubborn := func(o *Options) { o.Providers = provider.NewRegistry("", stubborn) }
	c1, srv1, _ := runCore(t, state, "", withStubborn)
	p := wspage.Dial(t, wsURL(srv1), srv1.URL)
	keep := false
	info := p.CreateSession(wire.CreateSessionParams{Provider: "stubborn", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &keep})
	turn := p.SendText(info.SessionID, "go")
	p.AwaitEvent(10*time.Second, "the first chat", func(e wire.Event) bool { return e.Event == wire.EventChatDelta })

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	c1.Shutdown(ctx) // the turn does not end by the deadline
	cancel()
	close(stubborn.release) // now it ends, after the state database closed
	time.Sleep(300 * time.Millisecond)
	last := int64(0)
	for _, e := range p.Events() {
		if e.SessionID == info.SessionID {
			last = max(last, e.Seq)
			if e.Event == wire.EventChatDelta && string(e.Data.(json.RawMessage)) == `{"text":"late"}` {
				t.Fatalf("the page got an event emitted after the state database closed (seq %d)", e.Seq)
			}
		}
	}
	srv1.Close()
	p.Close()

	_, srv2, _ := runCore(t, state, srv1.Listener.Addr().String(), withStubborn)
	p2 := wspage.Dial(t, wsURL(srv2), srv2.URL)
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &last})
	if d := p2.AwaitDone(turn, 10*time.Second); d.OK || d.Error == nil || d.Error.Code != wire.CodeTurnInterrupted {
		t.Fatalf("the cut-off turn's done after the restart = %+v", d)
	}
}
