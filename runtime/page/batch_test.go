package page

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// packBatch: arrays within the frame and byte limits; a frame alone, or one
// larger than the limit, goes as itself.
func TestPackBatch(t *testing.T) {
	c := &conn{srv: &Server{MaxMessageBytes: 100}}
	f := func(n int) []byte { return []byte(`"` + strings.Repeat("x", n-2) + `"`) }
	frames := [][]byte{f(40), f(40), f(40), f(200), f(10)}
	var got []string
	for len(frames) > 0 {
		msg, n := c.packBatch(frames)
		if n > 1 {
			var elems []json.RawMessage
			if err := json.Unmarshal(msg, &elems); err != nil || len(elems) != n {
				t.Fatalf("array %s: %v", msg, err)
			}
			if len(msg) > 100 {
				t.Fatalf("array of %d bytes over the limit", len(msg))
			}
		}
		got = append(got, fmt.Sprintf("%d:%d", n, len(msg)))
		frames = frames[n:]
	}
	if strings.Join(got, " ") != "2:83 1:40 1:200 1:10" {
		t.Fatalf("messages %v", got)
	}
	many := make([][]byte, wire.MaxBatchFrames+3)
	for i := range many {
		many[i] = []byte("1")
	}
	c.srv.MaxMessageBytes = 1 << 20
	if _, n := c.packBatch(many); n != wire.MaxBatchFrames {
		t.Fatalf("packed %d frames, the limit is %d", n, wire.MaxBatchFrames)
	}
}
