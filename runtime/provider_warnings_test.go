package runtime

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/provider"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// An agent that asks permission thousands of times (each a provider
// warning) makes one log line per kind and window, then one with the
// count, as refused connections do: not one line per request.
func TestProviderWarningsThrottled(t *testing.T) {
	var logs syncBuf
	h := newHarness(t, func(o *Options) {
		o.Logger = log.New(&logs)
		o.Limits.RefusalLogWindow = 200 * time.Millisecond
	})
	p := h.page()
	info, _ := h.session(p, true)
	turnID, ht := h.send(p, info.SessionID, "go")
	for i := range 3000 {
		ht.emit(provider.Event{Warning: fmt.Sprintf("hostile asked permission: rejected rm -rf /%d", i)})
	}
	ht.emit(provider.Event{Warning: "hostile: something else"})
	ht.finish <- nil
	p.AwaitDone(turnID, 10*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "count=2999") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	got := logs.String()
	if n := strings.Count(got, "asked permission"); n > 2 {
		t.Errorf("%d log lines for 3000 permission requests:\n%.2000s", n, got)
	}
	if !strings.Contains(got, "count=2999") || !strings.Contains(got, "something else") {
		t.Errorf("the repeats are not counted, or another kind was swallowed:\n%.2000s", got)
	}
}
