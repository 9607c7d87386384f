package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

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
	c := startStdio(t, bigMirror(newTestTools()))
	c.initialize("2025-03-26")
	c.send(batchOf(1000, "tools/list"))
	m := c.recv()
	if errCode(t, m) != jsonrpc.CodeInvalidRequest || m["id"] != nil {
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

// A batch at the limit is answered whole: one line of MaxBatchMessages
// answers, so what one batch makes is bounded by MaxBatchMessages answers
// (here 64 tools/list of ~100 KB each).
func TestBatchAtTheLimitAnswered(t *testing.T) {
	c := startStdio(t, bigMirror(newTestTools()))
	c.initialize("2025-03-26")
	c.send(batchOf(MaxBatchMessages, "tools/list"))
	raw := c.recvRaw()
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(raw), &answers); err != nil || len(answers) != MaxBatchMessages {
		t.Fatalf("%d answers, %v", len(answers), err)
	}
	ids := map[int]bool{}
	for _, a := range answers {
		if a.Result == nil {
			t.Fatalf("answer %d has no result", a.ID)
		}
		ids[a.ID] = true
	}
	if len(ids) != MaxBatchMessages {
		t.Fatalf("%d distinct ids", len(ids))
	}
	t.Logf("%d tools/list answers, %d bytes in all", len(answers), len(raw))
}

// Issue 20: `pedelec mcp` buffered a stdio line of any length (300 MB
// line, 314 MB RSS). A line over MaxMessageBytes is read to its end
// without being kept, answered with CodeMessageTooLarge, and the session
// goes on.
func TestStdioLineTooLong(t *testing.T) {
	c := startStdio(t, bigMirror(newTestTools()))
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

// Over HTTP the same limit holds: a batch over MaxBatchMessages is HTTP
// 400 with the JSON-RPC error, and none of it runs; one at the limit is
// answered event by event.
func TestHTTPBatchBounds(t *testing.T) {
	hh := startHTTP(t, bigMirror(newTestTools()), 4096) // holds a batch of 64 short messages
	id := hh.initialize("2025-03-26")
	old := map[string]string{protocolVersionHeader: "2025-03-26"}
	status, e := rpcError(t, hh.post(context.Background(), id, batchOf(MaxBatchMessages+1, "ping"), old))
	if status != http.StatusBadRequest || e == nil || e.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("a batch of %d: HTTP %d %v", MaxBatchMessages+1, status, e)
	}
	ev := events(t, hh.post(context.Background(), id, batchOf(MaxBatchMessages, "tools/list"), old))
	full := 0
	for _, m := range ev {
		if m["result"] != nil {
			full++
		}
	}
	if len(ev) != MaxBatchMessages || full != MaxBatchMessages {
		t.Fatalf("%d events, %d full", len(ev), full)
	}
}
