// Package refusals logs refused requests without letting a client flood the log.
package refusals

import (
	"sync"
	"time"

	"github.com/charmbracelet/log"
)

// Log logs refused requests without letting a client flood the log:
// the first refusal of a kind and key (a uid, an origin, a Host) is logged
// at once with its details; repeats within the window are only counted, and
// one line with the count follows when the window closes. A client hammering
// Core with wrong secrets makes two lines a minute, not thousands.
type Log struct {
	log    *log.Logger
	window time.Duration

	mu      sync.Mutex
	entries map[string]*refusalEntry
}

type refusalEntry struct {
	msg   string
	count int
}

// maxRefusalKeys bounds the keys tracked at once; beyond it, refusals share
// one "other" entry per kind, so the table itself cannot grow without end.
const maxRefusalKeys = 256

func New(l *log.Logger, window time.Duration) *Log {
	return &Log{log: l, window: window, entries: map[string]*refusalEntry{}}
}

// Note records one refusal; kv are logged with the first one only.
func (r *Log) Note(kind, key, msg string, kv ...any) {
	r.mu.Lock()
	if len(r.entries) >= maxRefusalKeys {
		key = "(other)"
	}
	id := kind + "\x00" + key
	if e, ok := r.entries[id]; ok {
		e.count++
		r.mu.Unlock()
		return
	}
	e := &refusalEntry{msg: msg}
	r.entries[id] = e
	r.mu.Unlock()
	r.log.Warn(msg, kv...)
	time.AfterFunc(r.window, func() {
		r.mu.Lock()
		delete(r.entries, id)
		n := e.count
		r.mu.Unlock()
		if n > 0 {
			r.log.Warn(msg+" (repeated)", "kind", kind, "key", key, "count", n, "within", r.window)
		}
	})
}
