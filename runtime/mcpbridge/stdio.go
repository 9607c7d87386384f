package mcpbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio runs one session of m's server over MCP's stdio transport:
// newline-delimited JSON-RPC messages on r, answers and notifications on
// w. It returns nil when r ends (the client closing stdin is how a stdio
// server stops) or ctx does; the calls still running are cancelled.
//
// The session is the SDK's. In front of it each line is read here, at
// most MaxMessageBytes of it kept, and a line the SDK would end the
// session over (too long, not JSON, not JSON-RPC, a batch past
// MaxBatchMessages) is answered here with a JSON-RPC error instead.
func ServeStdio(ctx context.Context, m *Mirror, r io.Reader, w io.Writer) error {
	conn := newStdioConn(r, &lineWriter{w: w})
	ss, err := m.server.Connect(ctx, conn, nil)
	if err != nil {
		conn.Close()
		return err
	}
	stop := context.AfterFunc(ctx, func() { m.endSession(ss) })
	defer stop()
	// r ends (the SDK cancels the calls), or ctx, or the client stops
	// answering pings (the session is closed here: "server is closing").
	err = ss.Wait()
	conn.Close()
	var werr *jsonrpc.Error
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || (errors.As(err, &werr) && werr.Code == codeServerClosing) {
		return nil
	}
	return err
}

// screen reads the client's lines, at most MaxMessageBytes of each kept,
// answers on out those the SDK must not see, and hands the rest, decoded
// once (stdio_conn.go), to the SDK. It returns at the end of the input.
func (c *stdioConn) screen(r io.Reader) {
	in := bufio.NewReaderSize(r, 64<<10)
	var batches batchRule
	for {
		line, size, err := readLine(in, MaxMessageBytes)
		switch {
		case size > MaxMessageBytes:
			c.out.write(refuse(nil, CodeMessageTooLarge, map[string]any{"limit": MaxMessageBytes, "size": size},
				"the message is %d bytes; a line may be at most %d bytes", size, MaxMessageBytes))
		case len(bytes.TrimSpace(line)) == 0:
		default:
			payloads, answer := screenLine(line, &batches)
			if answer != nil {
				c.out.write(answer)
				break
			}
			for _, p := range payloads {
				if !c.deliver(p) {
					return // the session is over
				}
			}
		}
		if errors.Is(err, io.EOF) {
			c.deliver(payload{err: io.EOF})
			return
		}
		if err != nil {
			c.deliver(payload{err: err})
			return
		}
	}
}

// screenLine is what the SDK gets of one line, or the answer that
// refuses it. One message (every line from 2025-06-18 on) is decoded
// once, for the checks and for the SDK.
func screenLine(line []byte, batches *batchRule) ([]payload, []byte) {
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] != '[' {
		if !json.Valid(trimmed) {
			return nil, checkMessages(trimmed) // worded there
		}
		msg, err := decodeMessage(trimmed)
		if err != nil {
			return nil, refuse(readableID(trimmed), jsonrpc.CodeInvalidRequest, nil, "not a JSON-RPC 2.0 message: %v", err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			batches.note(req.Method, req.Params)
		}
		return []payload{{msgs: []jsonrpc.Message{msg}}}, nil
	}
	if answer := checkMessages(trimmed); answer != nil {
		return nil, answer
	}
	if answer := batches.check(trimmed); answer != nil {
		return nil, answer
	}
	var out []payload
	for _, part := range unbatchNotifications(trimmed) {
		var raws []json.RawMessage
		isBatch := json.Unmarshal(part, &raws) == nil
		if !isBatch {
			raws = []json.RawMessage{part}
		}
		p := payload{batch: isBatch}
		for _, raw := range raws {
			msg, err := decodeMessage(raw) // checkMessages has decoded it
			if err != nil {
				return nil, refuse(nil, jsonrpc.CodeInvalidRequest, nil, "not a JSON-RPC 2.0 message: %v", err)
			}
			p.msgs = append(p.msgs, msg)
		}
		out = append(out, p)
	}
	return out, nil
}

// batchRule follows the revision a stdio session speaks, as far as
// batches go: MCP 2025-06-18 removed them, and the SDK ends a session
// that sends one in a later revision. Such a batch is answered here with
// -32600 instead, and the session goes on.
type batchRule struct {
	noneSince string // the revision spoken, once it has no batches
}

// check returns the refusal of payload, a batch the session's revision
// does not allow, or notes the revision payload's messages set.
func (b *batchRule) check(payload []byte) []byte {
	payload = bytes.TrimSpace(payload)
	var msgs []json.RawMessage
	if payload[0] == '[' {
		if b.noneSince != "" {
			return refuse(nil, jsonrpc.CodeInvalidRequest, nil, "JSON-RPC batches are not part of MCP %s", b.noneSince)
		}
		_ = json.Unmarshal(payload, &msgs) // checkMessages has checked it
	} else {
		msgs = []json.RawMessage{payload}
	}
	for _, raw := range msgs {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(raw, &m) == nil {
			b.note(m.Method, m.Params)
		}
	}
	return nil
}

// note takes the revision a request with method and params speaks: the
// one its initialize negotiates, or a stateless request's in its _meta.
func (b *batchRule) note(method string, params json.RawMessage) {
	if len(params) == 0 || !bytes.Contains(params, []byte("rotocolVersion")) && !bytes.Contains(params, []byte(`\u`)) {
		return // neither kind names one (not even with a key's letters escaped)
	}
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
		Meta            struct {
			ProtocolVersion any `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	v, _ := p.Meta.ProtocolVersion.(string) // a stateless request's
	if method == "initialize" {
		v = negotiated(p.ProtocolVersion)
	}
	if v >= firstWithoutBatches {
		b.noneSince = v
	}
}

// firstWithoutBatches is the first MCP revision without JSON-RPC batches.
const firstWithoutBatches = "2025-06-18"

// negotiated is the revision the SDK answers an initialize for version
// with: that one if it speaks it, else the newest that has initialize.
func negotiated(version string) string {
	if version < "2026-07-28" && slices.Contains(mcp.SupportedProtocolVersions(), version) {
		return version
	}
	return "2025-11-25"
}

// readLine reads one line and returns it with its newline, and its size
// without. A line longer than max is read to its end but not kept (line is
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

// lineWriter is the SDK's stdout and screenLines' too: one message at a
// time, so an answer written here never splits one the SDK writes (the
// SDK writes each message, newline included, in one Write).
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(p)
}

// Close leaves stdout open: the process still logs and exits through it.
func (lw *lineWriter) Close() error { return nil }

func (lw *lineWriter) write(msg []byte) {
	// A failed write means the client is gone; the read side sees EOF next.
	_, _ = lw.Write(append(msg, '\n'))
}
