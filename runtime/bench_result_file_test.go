package runtime

import (
	"encoding/json"
	"os"
	"testing"
)

// What a result over the inline limit costs Core on top of the call:
// writing it to the session's assets, reading its top-level shape and
// cutting the preview (runtime/session/result_file.go). The inline case is the same
// answer under the limit, for comparison (docs/performance.md).
// `go test ./runtime -run '^$' -bench ResultFile -benchmem`
func BenchmarkResultFile(b *testing.B) {
	for _, c := range []struct {
		name string
		size int
	}{{"inline-8KiB", 8 << 10}, {"file-64KiB", 64 << 10}, {"file-512KiB", 512 << 10}} {
		b.Run(c.name, func(b *testing.B) {
			s := leanPage(b, []byte(`1`))
			result := largeTable(c.size)
			b.SetBytes(int64(len(result)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out := s.Answer("table", result, nil)
				if out.ResultFile != nil {
					b.StopTimer()
					os.Remove(out.ResultFile.Path) // keep the directory as small as one call leaves it
					b.StartTimer()
				} else if c.size > DefaultMaxInlineResultBytes {
					b.Fatal("no file")
				}
			}
		})
	}
}

// largeTable is a page's table of about size bytes: an object with rows.
func largeTable(size int) json.RawMessage {
	type row struct {
		ID   int    `json:"id"`
		Item string `json:"item"`
		Qty  int    `json:"qty"`
	}
	var rows []row
	for n := 0; n*40 < size; n++ {
		rows = append(rows, row{n, "an item of the order table", n % 7})
	}
	out, _ := json.Marshal(map[string]any{"rows": rows, "total": len(rows)})
	return out
}
