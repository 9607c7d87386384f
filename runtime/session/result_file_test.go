package session

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The shape and preview the agent gets describe the result without it.
func TestResultFileShape(t *testing.T) {
	n := func(i int) *int { return &i }
	for _, c := range []struct {
		in   string
		want wire.ResultShape
	}{
		{`{"rows":[1,2],"total":2}`, wire.ResultShape{Type: "object", Keys: []string{"rows", "total"}}},
		{`[1,{"a":[2]},"x"]`, wire.ResultShape{Type: "array", Length: n(3)}},
		{` [ ] `, wire.ResultShape{Type: "array", Length: n(0)}},
		{`{}`, wire.ResultShape{Type: "object", Keys: []string{}}},
		{`{"q\"{[,":"a,b]}","n":{"x":[1,2]},"e":"\\"}`, wire.ResultShape{Type: "object", Keys: []string{"q\"{[,", "n", "e"}}},
		{`[{"a":1},[2,3],"]",4]`, wire.ResultShape{Type: "array", Length: n(4)}},
		{`"héllo"`, wire.ResultShape{Type: "string", Length: n(5)}},
		{`12.5`, wire.ResultShape{Type: "number"}},
		{`null`, wire.ResultShape{Type: "null"}},
	} {
		got, _ := json.Marshal(shapeOf(json.RawMessage(c.in)))
		want, _ := json.Marshal(c.want)
		if string(got) != string(want) {
			t.Errorf("shapeOf(%s) = %s; want %s", c.in, got, want)
		}
	}
	obj := map[string]int{}
	for i := 0; i < 25; i++ {
		obj[fmt.Sprintf("k%02d", i)] = i
	}
	raw, _ := json.Marshal(obj)
	if got := shapeOf(raw); len(got.Keys) != maxShapeKeys || got.Length == nil || *got.Length != 25 || got.Keys[0] != "k00" {
		t.Errorf("25 keys: %+v", got)
	}
	long := largeTable(4096)
	if p := preview(long); len([]rune(p)) != previewRunes+1 || p[:10] != string(long[:10]) {
		t.Errorf("preview = %q", p)
	}
	if p := preview(json.RawMessage(`{"a":"é"}`)); p != `{"a":"é"}` {
		t.Errorf("short preview = %q", p)
	}
}

// The shape alone: the part of a file's cost that grows with the result.
func BenchmarkResultShape(b *testing.B) {
	result := largeTable(64 << 10)
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		shapeOf(result)
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
