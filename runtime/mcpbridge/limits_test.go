package mcpbridge

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeMessage decodes what the SDK's DecodeMessage decodes, to the same
// message: it only does the usual requests itself, with less garbage.
func FuzzDecodeMessageAsTheSDK(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":null}`,
		`{"jsonrpc":"2.0","id":1,"method":3}`,
		`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng","params":null}`,
		`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
		`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`,
		`[1]`, `"s"`, `null`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		data := []byte(line)
		if !json.Valid(data) {
			return // the screen refuses these before decoding
		}
		want, werr := jsonrpc.DecodeMessage(data)
		got, gerr := decodeMessage(data)
		if werr != nil {
			if gerr == nil {
				// Accepting more than the SDK would is allowed only for
				// what is a request of the usual shape.
				if _, ok := got.(*jsonrpc.Request); !ok {
					t.Fatalf("%s: the SDK refuses it (%v), decodeMessage took %#v", line, werr, got)
				}
			}
			return
		}
		if gerr != nil {
			t.Fatalf("%s: the SDK decodes it, decodeMessage says %v", line, gerr)
		}
		if wr, ok := want.(*jsonrpc.Request); ok {
			gr, ok := got.(*jsonrpc.Request)
			if !ok || gr.Method != wr.Method || gr.ID != wr.ID || !jsonEqual(gr.Params, wr.Params) {
				t.Fatalf("%s:\n got %#v\nwant %#v", line, got, want)
			}
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %#v\nwant %#v", line, got, want)
		}
	})
}

// jsonEqual: both absent, or the same JSON value.
func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b) || string(a)+string(b) == "null"
	}
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
