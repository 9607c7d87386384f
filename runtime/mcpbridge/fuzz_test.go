package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzStdioSession feeds one client's whole stdin to a session as Core
// serves it (line reading, batches, parse, dispatch, cancellation): no
// panic, ServeStdio returns, every line written is one JSON value, and
// the output stays bounded by the batch and line limits.
func FuzzStdioSession(f *testing.F) {
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, seed := range []string{
		initialize + "\n" + `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		initialize + "\n" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":[1,2]}}}`,
		initialize + "\n" + `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		initialize + "\n" + `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block"}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}`,
		initialize + "\n" + batchOf(65, "ping"),
		initialize + "\n" + batchOf(64, "tools/list"),
		`[]`, `[1]`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"1.0","id":1}`, `{`, "\x00\xff", `[[[[[[[[`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"!!"}}`,
		initialize + "\n" + initialize,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		var out bytes.Buffer
		if err := ServeStdio(context.Background(), bigMirror(newTestTools()), strings.NewReader(input), &out); err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		lines := strings.Count(input, "\n") + 1
		// Each line is answered at most once (a batch in one line), a
		// batch by at most MaxBatchMessages tools/list pages.
		if limit := lines * MaxBatchMessages * (200 << 10); out.Len() > limit {
			t.Fatalf("%d bytes of output for %d lines", out.Len(), lines)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Fatalf("output line is not JSON: %.200q", line)
			}
		}
	})
}
