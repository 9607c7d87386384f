package provider

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// What an agent notifies waits in the ACP library's queue until Core has
// handled it; the library closes the connection, unexplained, past 1024
// there, and each waiting message holds its bytes (up to 10 MiB). An
// honest agent sends thousands at once (a session/load replaying a long
// history, a fast model's chunks), and an agent may notify what never
// reaches a handler of Core's (an extension notification, one the library
// cannot read, a method nobody knows), so neither stopping the agent past
// a count nor counting in the handlers holds. Instead Core stops reading
// the agent's output while too much waits: the agent's writes block on
// the pipe until Core catches up, as they would on a slow terminal.
//
// What has been handled is learnt from the library's own order: it
// handles notifications one at a time, in the order read. Among the
// agent's lines Core puts marks, extension notifications of its own
// (acpMarkMethod, with a key the agent never sees); when the library hands
// a mark to Core, everything read before it has been handled (or dropped),
// whatever its kind.
//
// Why this cannot deadlock: the library handles notifications on one
// goroutine, which never waits for anything read later. Core's handlers
// of notifications (session/update, the marks) take only short locks
// (acpClient.mu, the session's lock for an event) and never write to the
// agent; a request (a permission) waits for the updates read before it
// (acp_order.go), which are in the queue already; a response and the
// library's wait for the notifications before it likewise. So what waits
// is always handled without another read, and the reader goes on. Writes
// to the agent are bounded on their own (acpWriteTimeout), so an agent
// that stops reading its stdin while its output waits is stopped as
// before; and a stopped agent (the turn's end, the session's, a bound)
// releases the reader waiting on it (acpBound.gone).

// acpMarkMethod is the marks' method.
const acpMarkMethod = "_pedelec/handled"

var (
	// acpMaxQueuedNotes bounds the agent's notifications read and not
	// handled yet, with the marks among them: half the library's queue.
	acpMaxQueuedNotes = 512
	// acpMaxQueuedBytes bounds their bytes; one message of up to
	// acpMaxLine still goes through when nothing waits.
	acpMaxQueuedBytes = 8 << 20
	// A mark follows every acpMarkEvery notifications or acpMarkBytes of
	// them, and the last one before the reader waits: often enough that
	// the reader goes on as soon as there is room, few enough to cost
	// nothing.
	acpMarkEvery = 64
	acpMarkBytes = 1 << 20
)

// noteWindow counts one agent's notifications from the reader to their
// handling. mu is a leaf: nothing else is locked under it.
type noteWindow struct {
	key                string // in the marks' params: the agent cannot forge one
	maxNotes, maxBytes int64  // acpMaxQueuedNotes and acpMaxQueuedBytes, as the agent started

	mu                  sync.Mutex
	sent, sentBytes     int64      // notifications passed to the library, and their bytes
	marked, markedBytes int64      // the same, as of the last mark passed
	done, doneBytes     int64      // the same, as of the last mark handled
	marks               []noteMark // passed and not handled yet, oldest first
	wake                chan struct{}
}

type noteMark struct{ n, bytes int64 }

func newNoteWindow() *noteWindow {
	var k [16]byte
	_, _ = rand.Read(k[:])
	return &noteWindow{key: hex.EncodeToString(k[:]), maxNotes: int64(acpMaxQueuedNotes), maxBytes: int64(acpMaxQueuedBytes)}
}

// room says whether a notification of size bytes may be passed now. If
// not, it returns a channel closed when a mark is handled, and the mark
// to pass first if the notifications waiting have none after them yet.
func (w *noteWindow) room(size int) (wake <-chan struct{}, mark []byte, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	waiting := w.sent - w.done + int64(len(w.marks))
	// Room for the notification and a mark after it: the library's queue
	// never holds more than acpMaxQueuedNotes.
	if waiting == 0 || (waiting+2 <= w.maxNotes && w.sentBytes-w.doneBytes+int64(size) <= w.maxBytes) {
		return nil, nil, true
	}
	if w.marked < w.sent {
		mark = w.markLocked()
	}
	if w.wake == nil {
		w.wake = make(chan struct{})
	}
	return w.wake, mark, false
}

// passed notes a notification of size bytes passed to the library, and
// returns a mark to pass after it, if one is due.
func (w *noteWindow) passed(size int) []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sent++
	w.sentBytes += int64(size)
	if w.sent-w.marked >= int64(acpMarkEvery) || w.sentBytes-w.markedBytes >= int64(acpMarkBytes) {
		return w.markLocked()
	}
	return nil
}

func (w *noteWindow) markLocked() []byte {
	w.marked, w.markedBytes = w.sent, w.sentBytes
	w.marks = append(w.marks, noteMark{n: w.sent, bytes: w.sentBytes})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":{"key":%q,"n":%d}}`+"\n", acpMarkMethod, w.key, w.sent)
}

// handled takes a mark the library handed to Core; false if params are
// not one of this window's marks.
func (w *noteWindow) handled(params json.RawMessage) bool {
	var p struct {
		Key string `json:"key"`
		N   int64  `json:"n"`
	}
	if json.Unmarshal(params, &p) != nil || subtle.ConstantTimeCompare([]byte(p.Key), []byte(w.key)) != 1 {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.marks) > 0 && w.marks[0].n <= p.N {
		w.done, w.doneBytes = w.marks[0].n, w.marks[0].bytes
		w.marks = w.marks[1:]
	}
	if w.wake != nil {
		close(w.wake)
		w.wake = nil
	}
	return true
}

// admit returns once a notification of size bytes may be passed to the
// library through pw, having passed a mark first if one is due; false
// if the agent was stopped meanwhile, or pw closed.
func (b *acpBound) admit(pw io.Writer, size int) bool {
	for {
		wake, mark, ok := b.notes.room(size)
		if ok {
			return true
		}
		if mark != nil {
			if _, err := pw.Write(mark); err != nil {
				return false
			}
		}
		select {
		case <-wake:
		case <-b.gone:
			return false
		}
	}
}
