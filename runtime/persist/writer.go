package persist

import (
	"sync"
	"time"

	"github.com/charmbracelet/log"
)

// Writer makes sessions durable in two steps. Each op goes first to the
// journal (Journal): appended in memory under the caller's lock, and
// handed to the kernel with one write(2) before any page connection writes
// (sync), so whatever a page saw survives a crash of Core. Then one
// goroutine commits the queued ops to the database, many to a transaction,
// at most every commitInterval, and drops the journal segment they came
// from.
//
// Waiting for each database commit (and its fsyncs) before sending, as the
// first design did, made every tool call wait for two of them and
// re-encode the session's whole record twice: 1.6 ms of Core CPU and a 3 ms
// p50 per call (issue 15). The journal costs a copy of each frame and a
// write(2) per burst instead, and keeps the first design's promise: a page
// never saw an event a crash takes back (docs/decisions.md).
//
// A session's record is small (its tools are written once, at creation,
// beside it), and records queued for the same session before the writer
// takes them are coalesced: a burst of status changes is one database put.
type Writer struct {
	db      *DB
	journal *Journal
	log     *log.Logger
	stuck   bool // a commit failed: keep every journal segment for the next Open (writer only)

	mu       sync.Mutex
	queue    []Op
	recordAt map[string]int // session id → index in queue of its queued record
	flushes  []chan struct{}
	wake     chan struct{}
	closed   bool
	done     chan struct{}
	held     chan struct{} // the wake channel the loop still ranges over, while HoldCommits holds it
}

// commitInterval is the most the writer waits to gather ops into one
// transaction: what keeps a busy Core at twenty commits a second however
// many calls it serves, and the journal short. The journal, not the
// commit, is what makes an event crash-safe, so the interval only bounds
// what a power cut can take (the journal's unsynced tail) and how much a
// restart replays. At 5 ms the commits and their two fdatasyncs were a
// quarter of Core's CPU under a stream of tool calls (issue 15).
const commitInterval = 50 * time.Millisecond

// maxBatch bounds the ops written in one transaction.
const maxBatch = 4096

// NewWriter starts the writer of db; Close stops it and closes db.
func NewWriter(db *DB, logger *log.Logger) *Writer {
	p := &Writer{db: db, journal: db.Journal(), log: logger, recordAt: map[string]int{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.loop()
	return p
}

// Put queues one op; it never blocks on the disk. A record replaces one
// of the same session still in the queue (keeping tools written with it).
// It reports false once the Writer is closed: Core is stopping, and
// nothing more can be made durable.
func (p *Writer) Put(op Op) bool {
	if p == nil {
		return true
	}
	// Under mu: close closes wake once closed is set, and a send on a
	// closed channel panics (a tool call reaching a session while Core
	// shuts down did, leaving the session's mutex held).
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	if err := p.journal.Append(op); err != nil {
		p.log.Error("journal an op; it reaches the database but would not survive a crash before that", "err", err)
	}
	switch {
	case op.Put != nil:
		if i, ok := p.recordAt[op.Put.ID]; ok {
			queued := p.queue[i].Put
			if op.Put.Skills == nil {
				op.Put.Skills = queued.Skills
			}
			p.queue[i].Put = op.Put
			return true
		}
		p.recordAt[op.Put.ID] = len(p.queue)
	case op.Delete != "":
		// A record queued before the delete is written and then removed in
		// the same or a later transaction; a later put starts a new entry.
		delete(p.recordAt, op.Delete)
	}
	p.queue = append(p.queue, op)
	p.wakeLocked()
	return true
}

// Sync hands the journal to the kernel: a page connection calls it before
// it writes, so the page never sees what a crash would take back.
func (p *Writer) Sync() {
	if p == nil {
		return
	}
	if err := p.journal.Write(); err != nil {
		p.log.Error("write the journal; what pages see now may not survive a crash of Core", "err", err)
	}
}

// wakeLocked tells the writer there is work, without blocking.
func (p *Writer) wakeLocked() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Flush waits until everything queued so far is committed.
func (p *Writer) Flush() {
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

// Close writes what is queued, stops the writer and closes the database;
// closing again waits for the first close.
func (p *Writer) Close() {
	if p == nil {
		return
	}
	p.Flush()
	p.mu.Lock()
	already := p.closed
	p.closed = true
	p.mu.Unlock()
	if already {
		<-p.done // a second Shutdown: the first one closes
		return
	}
	close(p.wake)
	<-p.done
	if err := p.db.Close(); err != nil {
		p.log.Warn("close state database", "err", err)
	}
}

func (p *Writer) loop() {
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
			batch, seg, flushes := p.take()
			if len(batch) > 0 {
				start := time.Now()
				if err := p.db.Apply(batch); err != nil {
					p.stuck = true
					p.log.Error("write state database; its journal is kept for the next start", "err", err, "ops", len(batch))
				} else if d := time.Since(start); d > time.Second {
					p.log.Warn("slow state database write", "ops", len(batch), "took", d.Round(time.Millisecond))
				}
				// A segment goes once its ops are committed, and only while
				// every earlier commit succeeded: the next Open replays the
				// journal in order from the first op the database lacks.
				if seg > 0 && !p.stuck {
					if err := p.journal.Remove(seg); err != nil {
						p.log.Warn("remove a committed journal segment", "err", err)
					}
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

// take removes the next batch from the queue, with the journal segment
// that holds its ops (0: none to remove), and when that empties the queue,
// the flushes it satisfies.
func (p *Writer) take() ([]Op, uint64, []chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var seg uint64
	if len(p.queue) > 0 && len(p.queue) <= maxBatch {
		// The batch is the whole queue, so the segment holds exactly its
		// ops; later ones go to the next segment.
		var err error
		if seg, err = p.journal.Rotate(); err != nil {
			p.log.Warn("start a new journal segment", "err", err)
		}
	}
	n := min(len(p.queue), maxBatch)
	batch := append([]Op(nil), p.queue[:n]...)
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
	return batch, seg, flushes
}

// HoldCommits stops the writer from committing, and so from handing the
// journal to the kernel when it starts a new segment: only Sync writes it.
// Crash tests use it, then Abandon, to catch what only the journal holds.
// Flush waits for good once commits are held.
func (p *Writer) HoldCommits() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		// The loop keeps ranging over the old channel, which nobody
		// sends on any more.
		p.held, p.wake = p.wake, make(chan struct{}, 1)
	}
}

// Abandon stops persistence as kill -9 would, at this instant: nothing
// more is committed, what the journal had not handed to the kernel is
// lost, and later ops go nowhere. Crash tests copy the files it leaves to
// start a Core on them; a Close after it only waits.
func (p *Writer) Abandon() error {
	p.mu.Lock()
	p.closed = true
	p.queue = nil
	wake, held := p.wake, p.held
	p.mu.Unlock()
	close(wake)
	if held != nil {
		close(held)
	}
	<-p.done
	return p.db.Abandon()
}
