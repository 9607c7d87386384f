package page

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"time"
)

// A tool call makes Core send a page several frames at once (the status
// change and the tool_call; then the settle, the status change and the
// submit response). The WebSocket library flushes every message with its
// own write(2); writeLoop instead holds the socket "corked" while it drains
// what is queued, so the frames of one moment leave in one write. That is
// fewer system calls in Core and fewer wake-ups of the browser's network
// stack per call (issue 15: Core's CPU per call).

// batchingResponseWriter hands the WebSocket library a connection whose
// writes can be held and released as one.
type batchingResponseWriter struct {
	http.ResponseWriter
	batch *writeBatch
}

func (w batchingResponseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w batchingResponseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.batch.conn = conn
	return conn, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(w.batch, brw.Writer.Size())), nil
}

// writeBatch is the library's way to the socket: while held, writes
// collect in buf; release sends them in one write.
type writeBatch struct {
	conn net.Conn

	mu   sync.Mutex
	held bool
	buf  []byte
}

func (b *writeBatch) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	return b.conn.Write(p)
}

func (b *writeBatch) hold() {
	b.mu.Lock()
	b.held = true
	b.mu.Unlock()
}

// release sends what was held, within timeout.
func (b *writeBatch) release(timeout time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held = false
	if len(b.buf) == 0 {
		return nil
	}
	b.conn.SetWriteDeadline(time.Now().Add(timeout))
	_, err := b.conn.Write(b.buf)
	b.conn.SetWriteDeadline(time.Time{})
	if cap(b.buf) > 64<<10 {
		b.buf = nil // do not keep a large frame's buffer for a quiet connection
	} else {
		b.buf = b.buf[:0]
	}
	return err
}
