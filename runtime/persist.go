package runtime

import (
	"sync"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/internal/store"
)

// persister writes session records and events to the state database from
// one goroutine, in the order they were queued, many to a transaction: a
// session's mutex is never held across a disk write, and a busy Core pays
// one fsync per batch rather than per event. An event reaches the page only
// after it was committed (Op.Done), so whatever a page saw is still there
// after a crash, and a resume never gets an event twice or a seq reused.
type persister struct {
	db  *store.DB
	log *log.Logger

	mu      sync.Mutex
	queue   []store.Op
	flushes []chan struct{}
	wake    chan struct{}
	closed  bool
	done    chan struct{}
}

// maxBatch bounds the ops written in one transaction.
const maxBatch = 4096

func newPersister(db *store.DB, logger *log.Logger) *persister {
	p := &persister{db: db, log: logger, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.loop()
	return p
}

// put queues one op; it never blocks on the disk.
func (p *persister) put(op store.Op) {
	if p == nil {
		return
	}
	// Under mu: close closes wake once closed is set, and a send on a
	// closed channel panics (a tool call reaching a session while Core
	// shuts down did, leaving the session's mutex held).
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.queue = append(p.queue, op)
	p.wakeLocked()
}

// wakeLocked tells the writer there is work, without blocking.
func (p *persister) wakeLocked() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// flush waits until everything queued so far is committed.
func (p *persister) flush() {
	if p == nil {
		return
	}
	ch := make(chan struct{})
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.flushes = append(p.flushes, ch)
	p.wakeLocked()
	p.mu.Unlock()
	<-ch
}

// close writes what is queued, stops the writer and closes the database.
func (p *persister) close() {
	if p == nil {
		return
	}
	p.flush()
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	close(p.wake)
	<-p.done
	if err := p.db.Close(); err != nil {
		p.log.Warn("close state database", "err", err)
	}
}

func (p *persister) loop() {
	defer close(p.done)
	for range p.wake {
		for {
			p.mu.Lock()
			n := min(len(p.queue), maxBatch)
			batch := append([]store.Op(nil), p.queue[:n]...)
			p.queue = p.queue[n:]
			var flushes []chan struct{}
			if len(p.queue) == 0 {
				flushes, p.flushes = p.flushes, nil
			}
			p.mu.Unlock()
			if len(batch) > 0 {
				start := time.Now()
				if err := p.db.Apply(batch); err != nil {
					p.log.Error("write state database; sessions may not survive a restart", "err", err, "ops", len(batch))
				} else if d := time.Since(start); d > time.Second {
					p.log.Warn("slow state database write", "ops", len(batch), "took", d.Round(time.Millisecond))
				}
			}
			// What was committed may now reach pages, in the order it was queued.
			for _, op := range batch {
				if op.Done != nil {
					op.Done()
				}
			}
			for _, ch := range flushes {
				close(ch)
			}
			if len(batch) == 0 || flushes != nil {
				break
			}
		}
	}
}
