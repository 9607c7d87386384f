package page

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Batched messages (docs/protocol.md, "Batched messages"; issue 15). A
// tool call is six frames on the page's socket; alone, each is a WebSocket
// message, and in the browser every message is a task of its own plus
// hops through the network service, which costs far more than the SDK's
// JavaScript for it. A page that connects with ?batch=1 gets a hello and
// from then on the frames Core has queued at one moment as ONE message, a
// JSON array of them in order, and may send its own requests that way.
// Nothing else changes: each frame keeps its seq or id, is logged and
// replayed as before, and pages that do not ask get one frame per message.

// maxBatchAnswers bounds how many refusals an oversized batch earns: past
// it the page is not a well-behaved SDK, and its socket is closed instead
// of filling the outbox with answers.
const maxBatchAnswers = 4 * wire.MaxBatchFrames

// helloFrame is the first frame of a batch-capable connection.
func (c *conn) helloFrame() []byte {
	hello := wire.Hello{Type: wire.FrameHello, Batch: true, MaxBatchFrames: wire.MaxBatchFrames, MaxMessageBytes: c.srv.MaxMessageBytes}
	if c.proofNonce != "" && c.srv.Prove != nil {
		// The page checks this against the key it remembers before it
		// sends its tools (runtime/coreauth); a bad nonce gets no proof.
		if p, err := c.srv.Prove(c.proofNonce); err == nil {
			hello.CoreKey, hello.CoreProof = p.Key, p.Signature
		}
	}
	data, _ := json.Marshal(hello)
	return data
}

// writeMessages writes frames as WebSocket messages: one each, or, on a
// batch-capable connection, as few arrays as the limits allow.
func (c *conn) writeMessages(ctx context.Context, frames [][]byte) error {
	c.srv.frames.Add(int64(len(frames)))
	if !c.batched {
		for _, data := range frames {
			c.srv.messages.Add(1)
			if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
				return err
			}
		}
		return nil
	}
	for len(frames) > 0 {
		msg, n := c.packBatch(frames)
		c.srv.messages.Add(1)
		if err := c.ws.Write(ctx, websocket.MessageText, msg); err != nil {
			return err
		}
		frames = frames[n:]
	}
	if cap(c.msg) > 64<<10 {
		c.msg = nil // a quiet socket keeps no large frame's buffer
	}
	return nil
}

// packBatch makes the first frames that fit one message into that message
// and says how many it took (at least one). A single frame goes as itself,
// not as an array of one; an array stays within maxBatchFrames and the
// message size limit, so a page never gets a message larger than it may
// send. The array is built in c.msg, which only the writer uses, and which
// the library has copied by the time Write returns.
func (c *conn) packBatch(frames [][]byte) ([]byte, int) {
	limit := int(c.srv.MaxMessageBytes)
	size, n := 1, 0 // "[" and, per frame, the frame and a "," or "]"
	for n < len(frames) && n < wire.MaxBatchFrames && (n == 0 || size+len(frames[n])+1 <= limit) {
		size += len(frames[n]) + 1
		n++
	}
	if n == 1 {
		return frames[0], 1
	}
	buf := append(c.msg[:0], '[')
	for i, f := range frames[:n] {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, f...)
	}
	c.msg = append(buf, ']')
	return c.msg, n
}

// isBatch tells an array message from a frame.
func isBatch(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '['
}

// handleBatch runs the requests of an array message in order, each as if it
// had come alone. An array over the hello's limits runs none of them: each
// gets BATCH_TOO_LARGE (a page that sends far more is closed instead).
func (c *conn) handleBatch(ctx context.Context, data []byte) {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil {
		c.respond(0, nil, wire.Errorf(wire.CodeInvalidInput, "message is not a JSON array of requests: %w", err))
		return
	}
	if len(elems) == 0 {
		c.respond(0, nil, wire.Errorf(wire.CodeInvalidInput, "an array message must hold at least one request"))
		return
	}
	limit := c.srv.MaxMessageBytes
	if len(elems) > wire.MaxBatchFrames || int64(len(data)) > limit {
		details := map[string]any{"frames": len(elems), "bytes": len(data), "maxBatchFrames": wire.MaxBatchFrames, "maxMessageBytes": limit}
		msg := fmt.Sprintf("the array message holds %d requests in %d bytes; the limits are %d requests and %d bytes: send fewer at once", len(elems), len(data), wire.MaxBatchFrames, limit)
		if len(elems) > maxBatchAnswers {
			reason, _ := json.Marshal(wire.Errorf(wire.CodeBatchTooLarge, "%s", msg).WithDetails(details))
			c.log.Warn("page sent an array message far over the limits; closing its socket", "frames", len(elems), "bytes", len(data))
			c.close(websocket.StatusMessageTooBig, closeReason(reason))
			return
		}
		for i, e := range elems {
			d := map[string]any{"index": i}
			for k, v := range details {
				d[k] = v
			}
			c.respond(requestID(e), nil, wire.Errorf(wire.CodeBatchTooLarge, "%s", msg).WithDetails(d))
		}
		return
	}
	for i, e := range elems {
		c.handleRequest(ctx, e, i)
	}
}

// closeReason fits a close reason into the 123 bytes a close frame allows.
func closeReason(reason []byte) string {
	if len(reason) <= 123 {
		return string(reason)
	}
	return `{"code":"BATCH_TOO_LARGE","message":"array message over the limits"}`
}

// atIndex names, in err's details, the place in an array message of the
// frame err is about; index < 0 (a frame sent alone) leaves err as it is.
func atIndex(err *wire.Error, index int) *wire.Error {
	if index < 0 {
		return err
	}
	switch d := err.Details.(type) {
	case nil:
		err.Details = map[string]any{"index": index}
	case map[string]any:
		d["index"] = index
	}
	return err
}
