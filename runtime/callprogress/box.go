// Package callprogress keeps what a running tool call reports of its
// progress (the handler's ctx.progress, issue 26) and passes it on at a
// bounded rate. A chatty handler cannot flood the agent, an MCP client or
// the console: each report only replaces the one before it in a Box, and a
// Pump sends the latest at most once per interval; the last one wins.
package callprogress

import (
	"context"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Every is the default least time between two reports passed on: at most
// four a second per call, as the SDK sends them.
const Every = 250 * time.Millisecond

// Box holds the latest report of one call. Its lock is a leaf.
type Box struct {
	mu      sync.Mutex
	latest  wire.Progress
	n       uint64        // reports put so far
	changed chan struct{} // one pending signal at most: coalesces
}

// New makes an empty Box.
func New() *Box { return &Box{changed: make(chan struct{}, 1)} }

// Put replaces the latest report; it never blocks.
func (b *Box) Put(p wire.Progress) {
	b.mu.Lock()
	b.latest = p
	b.n++
	b.mu.Unlock()
	select {
	case b.changed <- struct{}{}:
	default: // a signal is pending already; its reader will see this report
	}
}

// Latest is the latest report and how many were put (0: none yet).
func (b *Box) Latest() (wire.Progress, uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.latest, b.n
}

// Pump calls send with the latest report each time there is a new one,
// no more often than every, until ctx ends. It starts with the latest
// report if there is one, so a waiter that takes over a call (tool-call
// --wait) hears at once how far it is. Pump is the Box's one reader:
// two at once would steal each other's signals.
func Pump(ctx context.Context, b *Box, every time.Duration, send func(wire.Progress)) {
	var seen uint64
	var last time.Time
	if _, n := b.Latest(); n > 0 {
		select {
		case b.changed <- struct{}{}:
		default:
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.changed:
		}
		if wait := every - time.Since(last); wait > 0 && !last.IsZero() {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		p, n := b.Latest()
		if n == seen {
			continue
		}
		seen, last = n, time.Now()
		send(p)
	}
}
