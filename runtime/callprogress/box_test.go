package callprogress

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A flood of reports reaches the reader as a few, at most one per
// interval, the latest last.
func TestPumpCoalescesToTheLatest(t *testing.T) {
	b := New()
	var mu sync.Mutex
	var got []wire.Progress
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Pump(ctx, b, 50*time.Millisecond, func(p wire.Progress) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		})
	}()
	start := time.Now()
	for i := 1; i <= 10000; i++ {
		b.Put(wire.Progress{Progress: float64(i), Total: 10000})
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		last := wire.Progress{}
		if n > 0 {
			last = got[n-1]
		}
		mu.Unlock()
		if last.Progress == 10000 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the latest report never came; got %d", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	elapsed := time.Since(start)
	if max := int(elapsed/(50*time.Millisecond)) + 2; len(got) > max {
		t.Fatalf("%d reports passed on in %v; at most %d at one per 50 ms", len(got), elapsed, max)
	}
	if _, n := b.Latest(); n != 10000 {
		t.Fatalf("Latest counted %d reports", n)
	}
}

// A reader that starts late (tool-call --wait taking over) hears the
// latest report at once, not at the next one.
func TestPumpStartsWithTheLatest(t *testing.T) {
	b := New()
	b.Put(wire.Progress{Progress: 1, Message: "old"})
	b.Put(wire.Progress{Progress: 2, Message: "latest"})
	heard := make(chan wire.Progress, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Pump(ctx, b, time.Hour, func(p wire.Progress) { heard <- p })
	select {
	case p := <-heard:
		if p.Message != "latest" {
			t.Fatalf("heard %+v first", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a late reader heard nothing")
	}
}
