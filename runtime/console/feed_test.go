package console

import (
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// fakeSource and fakeHost stand in for Core: the tracker needs nothing
// more than what they expose.
type fakeSource struct {
	id  string
	key Key
}

func (s *fakeSource) ID() string   { return s.id }
func (s *fakeSource) Key() Key     { return s.key }
func (s *fakeSource) State() State { return State{Info: wire.ConsoleSession{ID: s.id, Seq: s.key.Seq}} }

// A delta carries only the sessions whose Key changed, and those gone.
func TestTrackerSendsOnlyWhatChanged(t *testing.T) {
	a, b := &fakeSource{id: "s_a", key: Key{Seq: 1}}, &fakeSource{id: "s_b", key: Key{Seq: 1}}
	var f Tracker
	snap := f.Snapshot(Input{Sessions: []Source{a, b}}, "http://127.0.0.1:1")
	if snap.Version != 1 || len(snap.Sessions) != 2 || snap.CoreURL != "http://127.0.0.1:1" {
		t.Fatalf("snapshot: %+v", snap)
	}
	if _, ok := f.Delta(Input{Sessions: []Source{a, b}}); ok {
		t.Fatal("a delta with nothing changed")
	}
	b.key.Notes++ // an approval noted: no event, but the view changed
	d, ok := f.Delta(Input{Sessions: []Source{a, b}})
	if !ok || d.Version != 2 || len(d.Sessions) != 1 || d.Sessions[0].ID != "s_b" || d.Removed != nil {
		t.Fatalf("delta after a note: %+v", d)
	}
	d, ok = f.Delta(Input{Sessions: []Source{b}})
	if !ok || len(d.Sessions) != 0 || len(d.Removed) != 1 || d.Removed[0] != "s_a" {
		t.Fatalf("delta after a session went: %+v", d)
	}
}

// A retired session's kept view shows its current status and seq.
func TestViewOfARetiredSession(t *testing.T) {
	final := &wire.ConsoleSession{ID: "s_x", EndReason: wire.EndReasonEndSession, Status: wire.StatusIdle, Seq: 3}
	v := View(State{Info: wire.ConsoleSession{ID: "s_x", Status: wire.StatusEnded, Seq: 5}, Final: final})
	if v.Status != wire.StatusEnded || v.Seq != 5 || v.EndReason != wire.EndReasonEndSession {
		t.Fatalf("view: %+v", v)
	}
}

// Bump wakes every waiter, and a later Wait waits for the next Bump.
func TestSignal(t *testing.T) {
	var s Signal
	w1, w2 := s.Wait(), s.Wait()
	s.Bump()
	<-w1
	<-w2
	select {
	case <-s.Wait():
		t.Fatal("woken without a bump")
	default:
	}
}
