package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// ServeStdio runs one session over MCP's stdio transport: newline-delimited
// JSON-RPC messages on r, answers and notifications on w. It returns nil
// when r ends (the client closing stdin is how a stdio server stops), after
// cancelling and waiting for the calls still running.
//
// Calls run concurrently, so a slow tool does not hold up ping or another
// call; initialize and notifications run in order, so a
// notifications/cancelled finds the call it cancels and tools/list after
// initialize sees the session initialized.
func ServeStdio(ctx context.Context, s *Server, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &lineWriter{w: w}
	ss := s.NewSession(out.write)
	var running sync.WaitGroup
	defer func() {
		ss.Close()
		running.Wait()
	}()

	in := bufio.NewReaderSize(r, 64<<10)
	for {
		line, size, err := readLine(in, MaxMessageBytes)
		switch {
		case size > MaxMessageBytes:
			out.write(encodeResponse(nil, nil, errorWithData(CodeMessageTooLarge, map[string]any{"limit": MaxMessageBytes, "size": size},
				"the message is %d bytes; a line may be at most %d bytes", size, MaxMessageBytes)))
		case len(bytes.TrimSpace(line)) > 0:
			ss.serveLine(ctx, line, out, &running)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// readLine reads one line and returns it, and its size without the
// newline. A line longer than max is read to its end but not kept (line is
// nil), so a client cannot make the server hold more than max bytes.
func readLine(in *bufio.Reader, max int) (line []byte, size int, err error) {
	for {
		frag, err := in.ReadSlice('\n')
		n := len(frag)
		if n > 0 && frag[n-1] == '\n' {
			n--
		}
		size += n
		if size <= max {
			line = append(line, frag...)
		} else {
			line = nil
		}
		if err != bufio.ErrBufferFull {
			return line, size, err
		}
	}
}

func (ss *Session) serveLine(ctx context.Context, line []byte, out *lineWriter, running *sync.WaitGroup) {
	msgs, batch, perr := splitPayload(line)
	if perr != nil {
		out.write(encodeResponse(nil, nil, perr))
		return
	}
	if batch {
		if v := ss.Version(); v >= noBatchesSince {
			out.write(encodeResponse(nil, nil, errorf(CodeInvalidRequest, "JSON-RPC batches are not part of MCP %s", v)))
			return
		}
		running.Add(1)
		go func() {
			defer running.Done()
			if answers := ss.handleBatch(ctx, msgs); len(answers) > 0 {
				data, _ := json.Marshal(answers)
				out.write(data)
			}
		}()
		return
	}
	m, perr := parseMessage(msgs[0])
	if perr != nil || !m.concurrent() { // a malformed message is answered at once
		if answer := ss.handle(ctx, m, perr); answer != nil {
			out.write(answer)
		}
		return
	}
	running.Add(1)
	go func() {
		defer running.Done()
		if answer := ss.handle(ctx, m, nil); answer != nil {
			out.write(answer)
		}
	}()
}

// handleBatch answers a batch (MCP 2025-03-26 and before): initialize and
// notifications in order, the other calls concurrently; the answers come
// back together, as JSON-RPC wants, at most maxBatchAnswerBytes of them.
func (ss *Session) handleBatch(ctx context.Context, msgs []json.RawMessage) []json.RawMessage {
	answers := make([]json.RawMessage, len(msgs))
	var (
		wg     sync.WaitGroup
		budget batchBudget
	)
	for i, raw := range msgs {
		m, perr := parseMessage(raw)
		if perr != nil || !m.concurrent() {
			answers[i] = budget.fit(m.ID, ss.handle(ctx, m, perr))
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = budget.fit(m.ID, ss.handle(ctx, m, nil))
		}()
	}
	wg.Wait()
	out := answers[:0]
	for _, a := range answers {
		if a != nil {
			out = append(out, a)
		}
	}
	return out
}

// lineWriter writes whole messages, one per line, one at a time: answers
// from concurrent calls and notifications never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lineWriter) write(msg []byte) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	// A failed write means the client is gone; the read side sees EOF next.
	line := make([]byte, 0, len(msg)+1) // msg may be shared with other sessions
	_, _ = lw.w.Write(append(append(line, msg...), '\n'))
}
