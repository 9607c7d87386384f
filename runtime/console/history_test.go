package console

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

type memStore struct{ saved map[string][]byte }

func (m *memStore) SaveHistory(_ int64, id string, view []byte, _ int) error {
	m.saved[id] = view
	return nil
}
func (m *memStore) History() ([][]byte, error) {
	var out [][]byte
	for _, v := range m.saved {
		out = append(out, v)
	}
	return out, nil
}

// The history keeps the newest HistoryMax sessions, each within
// HistoryEntryMaxBytes, and a new History reads them back oldest first.
func TestHistoryBounds(t *testing.T) {
	st := &memStore{saved: map[string][]byte{}}
	h := NewHistory(st)
	big := strings.Repeat("x", HistoryEntryMaxBytes)
	for i := 0; i < HistoryMax+5; i++ {
		v := wire.ConsoleSession{ID: "s_" + string(rune('a'+i%26)) + strings.Repeat("z", i/26), CreatedAt: int64(i), Status: wire.StatusIdle}
		if i == HistoryMax+4 {
			v.Calls = []wire.ConsoleCall{{ID: "c", Tool: "t", Args: json.RawMessage(`"` + big + `"`)}}
		}
		h.Add(v)
	}
	srcs := h.Sources(func(string) bool { return false })
	if len(srcs) != HistoryMax {
		t.Fatalf("%d sessions kept, want %d", len(srcs), HistoryMax)
	}
	last := View(srcs[len(srcs)-1].State())
	if last.Status != wire.StatusEnded || !last.Truncated || len(last.Calls) != 1 || string(last.Calls[0].Args) != "null" {
		t.Fatalf("the oversized session was kept as %+v", last)
	}
	if n := len(st.saved[last.ID]); n > HistoryEntryMaxBytes {
		t.Fatalf("stored %d bytes, more than %d", n, HistoryEntryMaxBytes)
	}
	again := NewHistory(st).Sources(func(id string) bool { return id == last.ID })
	for i := 1; i < len(again); i++ {
		if View(again[i-1].State()).CreatedAt > View(again[i].State()).CreatedAt {
			t.Fatal("a reloaded history is not oldest first")
		}
	}
}
