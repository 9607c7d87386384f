package mcpbridge

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioConn is the SDK's Connection for ServeStdio: what the SDK's own
// IOTransport does, newline-delimited JSON-RPC with batches (MCP
// 2025-03-26 and before) answered in one line, but fed by the screen
// (stdio.go), which has decoded each message already to check it. With
// the IOTransport each message was decoded three times more (the screen's
// checks, the SDK's stream decoder, its DecodeMessage), each decode of the
// SDK's JSON package allocating 32 KB buffers, and it went through a pipe
// and a goroutine of its own first (docs/performance.md, "The MCP path").
type stdioConn struct {
	out      *lineWriter
	incoming chan payload
	closed   chan struct{}
	close    sync.Once

	queue []jsonrpc.Message // read from a batch, not yet returned; Read's own

	mu      sync.Mutex                  // guards batches; a leaf
	batches map[jsonrpc.ID]*answerBatch // by the id of each call not yet answered
}

// payload is one line's messages, as the SDK would have read them, or how
// the input ended.
type payload struct {
	msgs  []jsonrpc.Message
	batch bool
	err   error
}

// answerBatch collects the answers to one batch's calls, to go out in one
// line once the last is in (JSON-RPC 2.0, "Batch").
type answerBatch struct {
	unanswered map[jsonrpc.ID]int // index in answers
	answers    []*jsonrpc.Response
}

var _ mcp.Transport = (*stdioConn)(nil)

func newStdioConn(r io.Reader, out *lineWriter) *stdioConn {
	c := &stdioConn{out: out, incoming: make(chan payload), closed: make(chan struct{})}
	// A goroutine reads, so that Close can end a Read waiting for input
	// (stdin cannot be unblocked; that goroutine ends with the process).
	go c.screen(r)
	return c
}

// Connect is the connection itself: it is made once, by ServeStdio.
func (c *stdioConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// deliver hands p to Read; false once the connection is closed.
func (c *stdioConn) deliver(p payload) bool {
	select {
	case c.incoming <- p:
		return true
	case <-c.closed:
		return false
	}
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if len(c.queue) > 0 {
		next := c.queue[0]
		c.queue = c.queue[1:]
		return next, nil
	}
	var p payload
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case p = <-c.incoming:
	}
	if p.err != nil {
		return nil, p.err
	}
	if p.batch {
		if err := c.addBatch(p.msgs); err != nil {
			return nil, err
		}
	}
	c.queue = p.msgs[1:]
	return p.msgs[0], nil
}

// addBatch notes the calls of a batch, whose answers go out together. A
// batch whose ids repeat, or repeat a call's still unanswered, ends the
// session, as with the SDK's own transport.
func (c *stdioConn) addBatch(msgs []jsonrpc.Message) error {
	b := &answerBatch{unanswered: map[jsonrpc.ID]int{}}
	for _, msg := range msgs {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if _, dup := b.unanswered[req.ID]; dup {
				return fmt.Errorf("duplicate message ID %q", req.ID)
			}
			b.unanswered[req.ID] = len(b.answers)
			b.answers = append(b.answers, nil)
		}
	}
	if len(b.answers) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range b.unanswered {
		if _, ok := c.batches[id]; ok {
			return fmt.Errorf("invalid request: batch contains previously seen request %v", id.Raw())
		}
	}
	if c.batches == nil {
		c.batches = map[jsonrpc.ID]*answerBatch{}
	}
	for id := range b.unanswered {
		c.batches[id] = b
	}
	return nil
}

// answered records resp if it answers a batch's call: done is whether
// it did, and all the batch's answers once resp was its last.
func (c *stdioConn) answered(resp *jsonrpc.Response) (all []*jsonrpc.Response, done bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.batches[resp.ID]
	if !ok {
		return nil, false
	}
	b.answers[b.unanswered[resp.ID]] = resp
	delete(b.unanswered, resp.ID)
	delete(c.batches, resp.ID)
	if len(b.unanswered) > 0 {
		return nil, true
	}
	return b.answers, true
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if all, inBatch := c.answered(resp); inBatch {
			if all == nil {
				return nil // the batch's other answers are still to come
			}
			line := []byte{'['}
			for i, r := range all {
				data, err := jsonrpc.EncodeMessage(r)
				if err != nil {
					return fmt.Errorf("marshaling message: %v", err)
				}
				if i > 0 {
					line = append(line, ',')
				}
				line = append(line, data...)
			}
			_, err := c.out.Write(append(line, ']', '\n'))
			return err
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

func (c *stdioConn) Close() error {
	c.close.Do(func() { close(c.closed) })
	return nil
}

func (c *stdioConn) SessionID() string { return "" }
