package page

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Whatever a page sends, the dispatcher answers with well-formed frames and
// never panics. No provider is registered, so no session or process starts.
func FuzzHandleFrame(f *testing.F) {
	srv := newTestServer(f)
	for _, seed := range []string{
		`{"type":"request","id":1,"method":"list_providers"}`,
		`{"type":"request","id":2,"method":"create_session","params":{"skills":{"guidance":"g","tools":[]}}}`,
		`{"type":"request","id":3,"method":"send_text","params":{"sessionId":"s_x","text":"hi"}}`,
		`{"type":"request","id":4,"method":"submit_tool_result","params":{"sessionId":"s_x","toolRequestId":"tr","result":{}}}`,
		`{"type":"request","id":5,"method":"resume_session","params":{"sessionId":5}}`,
		`{"type":"request","id":6,"method":"end_session","params":null}`,
		`{"type":"event"}`, `[]`, `null`, `{"id":"x"}`, `{`,
		`[{"type":"request","id":7,"method":"list_providers"},3,{"type":"request","id":8,"method":"nope"}]`, `[null]`, `[[]]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newConn(srv, nil, "")
		c.handleFrame(context.Background(), data)
		drainAnswers(t, c)
		// A page that asked for batched messages, read as serve reads it.
		b := newConn(srv, nil, "")
		b.batched = true
		if isBatch(data) {
			b.handleBatch(context.Background(), data)
		} else {
			b.handleFrame(context.Background(), data)
		}
		drainAnswers(t, b)
	})
}

// drainAnswers checks that every frame c queued is JSON, and every failed
// response carries a code.
func drainAnswers(t *testing.T, c *conn) {
	t.Helper()
	for {
		select {
		case f := <-c.out:
			if f.replay != nil {
				continue // a replay is read from a session log by the writer
			}
			frame := f.data
			var resp wire.Response
			if err := json.Unmarshal(frame, &resp); err != nil {
				t.Fatalf("frame is not JSON: %s", frame)
			}
			if resp.Type == wire.FrameResponse && !resp.OK && (resp.Error == nil || resp.Error.Code == "") {
				t.Fatalf("failed response without a code: %s", frame)
			}
		default:
			return
		}
	}
}
