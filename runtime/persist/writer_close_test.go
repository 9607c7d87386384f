package persist

import (
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"
)

// Sessions keep emitting while Core shuts down (a tool call arriving from
// an agent): a Put after the Writer closed is dropped, never a panic.
// The soak found the panic: "send on closed channel" in put, from an HTTP
// handler that held the session's mutex.
func TestWriterPutDuringAndAfterClose(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "state.db"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p := NewWriter(db, log.New(io.Discard))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				p.Put(Op{SessionID: "s_1", Events: []Event{{Seq: 1, Frame: []byte("{}")}}})
				p.Flush()
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	p.Close()
	p.Put(Op{SessionID: "s_1", Events: []Event{{Seq: 2, Frame: []byte("{}")}}})
	if p.mu.Lock(); len(p.queue) != 0 {
		t.Errorf("an op put after close was queued: %d ops", len(p.queue))
	}
	p.mu.Unlock()
	close(stop)
	wg.Wait()
}
