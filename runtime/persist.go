package runtime

import (
	"sync"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/internal/store"
)

// persister writes session records and events to the state database from
// one goroutine, in the order they were queued, many to a transaction.
//
// It is off the call path on purpose (issue 15): an event goes to the page
// as soon as it is logged in memory, and the writer commits what piled up
// at most every commitInterval. Waiting for each commit (and its fsync)
// before sending, as the first design did, made every tool call wait for
// two fsyncs and re-encode the session's record twice: 1.6 ms of Core CPU
// and 3 ms of latency per call. What that costs in durability is bounded
// and only for a crash (kill -9, power loss): the events of the last
// commitInterval before it may be missing from the database. A page that
// saw them resumes with a lastSeq past what Core restored, and Core goes on
// after that seq (Session.resume), so no seq is used twice and nothing is
// replayed twice; the turn they belonged to was cut off by the crash and
// ends with TURN_INTERRUPTED either way. A graceful stop commits everything.
//
// A session's record is small (its tools are written once, at creation,
// beside it), and records queued for the same session before the writer
// takes them are coalesced: a burst of status changes costs one encoding.
type persister struct {
	db  *store.DB
	log *log.Logger

	mu       sync.Mutex
	queue    []store.Op
	recordAt map[string]int // session id → index in queue of its queued record
	flushes  []chan struct{}
	wake     chan struct{}
	closed   bool
	done     chan struct{}
}

// commitInterval is the most the writer waits to gather ops into one
// transaction: the bound on what a crash can lose, and what keeps a busy
// Core at a few hundred commits a second however many calls it serves.
const commitInterval = 5 * time.Millisecond

// maxBatch bounds the ops written in one transaction.
const maxBatch = 4096

func newPersister(db *store.DB, logger *log.Logger) *persister {
	p := &persister{db: db, log: logger, recordAt: map[string]int{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.loop()
	return p
}

// put queues one op; it never blocks on the disk. A record replaces one
// of the same session still in the queue (keeping tools written with it).
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
	switch {
	case op.Put != nil:
		if i, ok := p.recordAt[op.Put.ID]; ok {
			queued := p.queue[i].Put
			if op.Put.Skills == nil {
				op.Put.Skills = queued.Skills
			}
			p.queue[i].Put = op.Put
			return
		}
		p.recordAt[op.Put.ID] = len(p.queue)
	case op.Delete != "":
		// A record queued before the delete is written and then removed in
		// the same or a later transaction; a later put starts a new entry.
		delete(p.recordAt, op.Delete)
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
	var lastCommit time.Time
	for range p.wake {
		// Let more ops gather unless someone waits for them.
		p.mu.Lock()
		waiting := len(p.flushes) > 0
		p.mu.Unlock()
		if wait := commitInterval - time.Since(lastCommit); wait > 0 && !waiting {
			time.Sleep(wait)
		}
		for {
			batch, flushes := p.take()
			if len(batch) > 0 {
				start := time.Now()
				if err := p.db.Apply(batch); err != nil {
					p.log.Error("write state database; sessions may not survive a restart", "err", err, "ops", len(batch))
				} else if d := time.Since(start); d > time.Second {
					p.log.Warn("slow state database write", "ops", len(batch), "took", d.Round(time.Millisecond))
				}
				lastCommit = time.Now()
			}
			for _, ch := range flushes {
				close(ch)
			}
			if len(batch) < maxBatch {
				break
			}
		}
	}
}

// take removes the next batch from the queue, and when that empties the
// queue, the flushes it satisfies.
func (p *persister) take() ([]store.Op, []chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := min(len(p.queue), maxBatch)
	batch := append([]store.Op(nil), p.queue[:n]...)
	p.queue = p.queue[n:]
	clear(p.recordAt)
	for i, op := range p.queue {
		if op.Put != nil {
			p.recordAt[op.Put.ID] = i
		}
	}
	var flushes []chan struct{}
	if len(p.queue) == 0 {
		p.queue = nil // let a burst's backing array go
		flushes, p.flushes = p.flushes, nil
	}
	return batch, flushes
}
