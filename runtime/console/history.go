package console

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The console's history: ended sessions as the console last showed them,
// kept across Core restarts in the state database, so the list is a
// history and not only what this run saw. Bounded: the newest
// HistoryMax sessions, each at most HistoryEntryMaxBytes of JSON (a
// larger one keeps its calls and turns without their arguments, results
// and text). docs/security.md says what is kept.
const (
	HistoryMax           = 200
	HistoryEntryMaxBytes = 64 << 10
)

// HistoryStore is where the history lives (the state database).
type HistoryStore interface {
	SaveHistory(createdAt int64, id string, view []byte, max int) error
	History() ([][]byte, error)
}

// History is the ended sessions' views, oldest first. Its mutex is a leaf.
type History struct {
	store HistoryStore
	mu    sync.Mutex
	views []wire.ConsoleSession
}

// NewHistory reads what store kept; a view that does not decode is skipped.
func NewHistory(store HistoryStore) *History {
	h := &History{store: store}
	if store == nil {
		return h
	}
	all, _ := store.History()
	for _, data := range all {
		var v wire.ConsoleSession
		if json.Unmarshal(data, &v) == nil && v.ID != "" {
			v.Status, v.Attached = wire.StatusEnded, false
			h.views = append(h.views, v)
		}
	}
	h.sort()
	return h
}

func (h *History) sort() {
	slices.SortStableFunc(h.views, func(a, b wire.ConsoleSession) int { return int(a.CreatedAt - b.CreatedAt) })
}

// Add keeps an ended session's last view, here and in the store.
func (h *History) Add(v wire.ConsoleSession) {
	v.Status, v.Attached = wire.StatusEnded, false
	data := fitEntry(&v)
	h.mu.Lock()
	h.views = slices.DeleteFunc(h.views, func(o wire.ConsoleSession) bool { return o.ID == v.ID })
	h.views = append(h.views, v)
	h.sort()
	if over := len(h.views) - HistoryMax; over > 0 {
		h.views = slices.Delete(h.views, 0, over)
	}
	h.mu.Unlock()
	if h.store != nil {
		_ = h.store.SaveHistory(v.CreatedAt, v.ID, data, HistoryMax)
	}
}

// fitEntry is v's JSON within HistoryEntryMaxBytes: when too long, the
// calls' arguments and results and the turns' text are dropped (v keeps
// the same shortening, so the console shows what a restart will).
func fitEntry(v *wire.ConsoleSession) []byte {
	data, _ := json.Marshal(v)
	if len(data) <= HistoryEntryMaxBytes {
		return data
	}
	v.Calls = slices.Clone(v.Calls)
	for i := range v.Calls {
		c := &v.Calls[i]
		c.Args, c.Result, c.Command = json.RawMessage(`null`), nil, ""
		c.ResultTruncated = true
	}
	v.Turns = slices.Clone(v.Turns)
	for i := range v.Turns {
		v.Turns[i].Text, v.Turns[i].Agent, v.Turns[i].Activity = "", "", nil
	}
	v.Truncated = true
	data, _ = json.Marshal(v)
	if len(data) > HistoryEntryMaxBytes {
		v.Calls, v.Turns = v.Calls[len(v.Calls)-min(len(v.Calls), 100):], v.Turns[len(v.Turns)-min(len(v.Turns), 50):]
		data, _ = json.Marshal(v)
	}
	return data
}

// Sources are the history's sessions that skip does not name (Core still
// holds those), oldest first.
func (h *History) Sources(skip func(id string) bool) []Source {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Source, 0, len(h.views))
	for i := range h.views {
		if !skip(h.views[i].ID) {
			v := h.views[i]
			out = append(out, pastSession{v})
		}
	}
	return out
}

// Find is the history's view of id.
func (h *History) Find(id string) (Source, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range h.views {
		if v.ID == id {
			return pastSession{v}, true
		}
	}
	return nil, false
}

// pastSession is an ended session the console shows from its history.
type pastSession struct{ v wire.ConsoleSession }

func (p pastSession) ID() string { return p.v.ID }
func (p pastSession) Key() Key {
	return Key{Seq: p.v.Seq, Status: wire.StatusEnded, Ended: true}
}
func (p pastSession) State() State {
	v := p.v
	return State{Info: wire.ConsoleSession{ID: v.ID, Status: wire.StatusEnded, Seq: v.Seq}, Final: &v}
}
