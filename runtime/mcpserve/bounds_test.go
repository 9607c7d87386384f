package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// bigServer's tools/list answer is about 100 KB (25 tools with 4 KB
// descriptions), so a full batch of them is past maxBatchAnswerBytes.
func bigServer() *Server {
	s, _ := testServer()
	for i := range 25 {
		s.AddTool(Tool{Name: fmt.Sprintf("big%03d", i), Description: strings.Repeat("d", 4<<10), InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, json.RawMessage) *CallToolResult { return &CallToolResult{} })
	}
	return s
}

func batchOf(n int, method string) string {
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, i+1, method)
	}
	return "[" + strings.Join(msgs, ",") + "]"
}

// Issue 20: one batch of 1,000 tools/list (55 KB) made a 535 MB answer.
// A batch holds at most MaxBatchMessages; a longer one is refused whole,
// and the session goes on.
func TestBatchOfTooManyMessages(t *testing.T) {
	c := startStdio(t, bigServer())
	c.initialize("2025-03-26")
	c.send(batchOf(1000, "tools/list"))
	m := c.recv()
	if errCode(t, m) != CodeInvalidRequest || m["id"] != nil {
		t.Fatalf("a batch of 1000: %v", m)
	}
	e := m["error"].(map[string]any)
	if d, _ := e["data"].(map[string]any); d["limit"] != float64(MaxBatchMessages) || d["messages"] != float64(1000) {
		t.Fatalf("error data: %v", e)
	}
	c.send(batchOf(MaxBatchMessages, "ping"))
	var answers []map[string]any
	if err := json.Unmarshal([]byte(c.recvRaw()), &answers); err != nil || len(answers) != MaxBatchMessages {
		t.Fatalf("a batch at the limit: %d answers, %v", len(answers), err)
	}
}

// The answers of one batch add up to at most maxBatchAnswerBytes past the
// first; the calls past it are answered with CodeAnswerTooLarge, each
// with its own id.
func TestBatchAnswerBounded(t *testing.T) {
	c := startStdio(t, bigServer())
	c.initialize("2025-03-26")
	c.send(batchOf(MaxBatchMessages, "tools/list"))
	raw := c.recvRaw()
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	if err := json.Unmarshal([]byte(raw), &answers); err != nil || len(answers) != MaxBatchMessages {
		t.Fatalf("%d answers, %v", len(answers), err)
	}
	full, refused, ids := 0, 0, map[int]bool{}
	for _, a := range answers {
		ids[a.ID] = true
		switch {
		case a.Result != nil:
			full++
		case a.Error != nil && a.Error.Code == CodeAnswerTooLarge:
			refused++
		default:
			t.Fatalf("answer %+v", a)
		}
	}
	if full == 0 || refused == 0 || len(ids) != MaxBatchMessages {
		t.Fatalf("%d full answers, %d refused, %d ids", full, refused, len(ids))
	}
	if len(raw) > maxBatchAnswerBytes+1<<20 {
		t.Fatalf("the batch answer is %d bytes; the cap is %d (plus one answer)", len(raw), maxBatchAnswerBytes)
	}
	t.Logf("%d full tools/list answers, %d refused, %d bytes in all", full, refused, len(raw))
}

// Issue 20: `pedelec mcp` buffered a stdio line of any length (300 MB
// line, 314 MB RSS). A line over MaxMessageBytes is read to its end
// without being kept, answered with CodeMessageTooLarge, and the session
// goes on.
func TestStdioLineTooLong(t *testing.T) {
	c := startStdio(t, bigServer())
	c.initialize("2025-06-18")
	long := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"x":"` + strings.Repeat("x", 3<<20) + `"}}}`
	c.send(long)
	m := c.recv()
	if errCode(t, m) != CodeMessageTooLarge || m["id"] != nil {
		t.Fatalf("a 3 MiB line: %v", m)
	}
	e := m["error"].(map[string]any)
	if d, _ := e["data"].(map[string]any); d["limit"] != float64(MaxMessageBytes) || d["size"] != float64(len(long)) {
		t.Fatalf("error data: %v", e)
	}
	// A line of exactly the limit is still read.
	exact := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"x":"`
	exact += strings.Repeat("y", MaxMessageBytes-len(exact)-len(`"}}}`)) + `"}}}`
	c.send(exact)
	if m := c.recv(); m["id"] != float64(8) || m["result"] == nil {
		t.Fatalf("a line of exactly the limit: %.200v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(9) || m["result"] == nil {
		t.Fatalf("ping after: %v", m)
	}
}

// Over HTTP the same limits hold: a batch over MaxBatchMessages is HTTP
// 400 with the JSON-RPC error; the answers of one batch are capped.
func TestHTTPBatchBounds(t *testing.T) {
	hh := startHTTP(t, bigServer()) // its 4096-byte body limit holds a batch of 64 short messages
	id := hh.initialize()
	old := map[string]string{protocolVersionHeader: "2025-03-26"}
	status, e := rpcError(t, hh.post(context.Background(), id, batchOf(MaxBatchMessages+1, "ping"), old))
	if status != http.StatusBadRequest || e == nil || e.Code != CodeInvalidRequest {
		t.Fatalf("a batch of %d: HTTP %d %v", MaxBatchMessages+1, status, e)
	}
	ev := events(t, hh.post(context.Background(), id, batchOf(MaxBatchMessages, "tools/list"), old))
	full, refused := 0, 0
	for _, m := range ev {
		if m["result"] != nil {
			full++
		} else if errCode(t, m) == CodeAnswerTooLarge {
			refused++
		}
	}
	if len(ev) != MaxBatchMessages || full == 0 || refused == 0 || full*100<<10 > maxBatchAnswerBytes+200<<10 {
		t.Fatalf("%d events: %d full, %d refused", len(ev), full, refused)
	}
}
