package wspage

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// SendBinary writes a raw binary frame, which the protocol does not allow.
func (p *Page) SendBinary(frame []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.ws.Write(ctx, websocket.MessageBinary, frame)
}

// AwaitResponse waits for the response frame with id, for requests sent
// raw with Send or SendBinary; ok is false if none came in time.
func (p *Page) AwaitResponse(id int64, timeout time.Duration) (r wire.Response, ok bool) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, f := range p.Frames() {
			var head struct {
				Type string `json:"type"`
				ID   int64  `json:"id"`
			}
			if json.Unmarshal(f, &head) == nil && head.Type == wire.FrameResponse && head.ID == id {
				json.Unmarshal(f, &r)
				return r, true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return r, false
}

// batchOf splits a batched message (a JSON array of frames) into its frames.
func batchOf(data []byte) ([]json.RawMessage, bool) {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 || data[0] != '[' {
		return nil, false
	}
	var elems []json.RawMessage
	if json.Unmarshal(data, &elems) != nil {
		return nil, false
	}
	return elems, true
}

// Messages says how many WebSocket messages the page received, and how
// many of them were arrays of frames (batched messages).
func (p *Page) Messages() (messages, arrays int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.messages, p.arrays
}
