package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// appendCompact is json.Compact for text the parser accepted: the same
// bytes for every value of the definitions in testdata and for strings that
// hold whitespace, quotes and escapes.
func TestAppendCompactMatchesEncodingJSON(t *testing.T) {
	inputs := [][]byte{
		[]byte(" { \"a\" : [ 1 , 2.5e3 , true , null ] ,\n\t\"b c\" : \"x \\\" y\\\\\" , \"\\u0041 \\n\" : { } }\r\n"),
		[]byte(`"  spaced  "`),
		[]byte(`["\\", " ", "\"", "日本 語"]`),
	}
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, b)
	}
	for _, in := range inputs {
		v, err := parseJSON(in)
		if err != nil {
			continue // not JSON: nothing to compact
		}
		var want bytes.Buffer
		if err := json.Compact(&want, in[v.start:v.end]); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := appendCompact([]byte("prefix"), string(in[v.start:v.end])); string(got) != "prefix"+want.String() {
			t.Errorf("appendCompact(%q)\n got %s\nwant %s", in, got[6:], want.Bytes())
		}
	}
}

// A schema text never aliases the checker's scratch buffer: the next
// tool's schema is compacted into the same buffer.
func TestSchemaTextOutlivesScratch(t *testing.T) {
	skills, problems := ValidateSkills([]byte(`{"guidance": "", "tools": [
		{"name": "a", "description": "A.", "argsSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": [], "description": "scratch-a"}},
		{"name": "b", "description": "B.", "argsSchema": {"type": "object", "properties": {}, "required": [], "description": "scratch-b"}}]}`))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if got := string(skills.Tools[0].ArgsSchema); got != `{"type":"object","properties":{"x":{"type":"string"}},"required":[],"description":"scratch-a"}` {
		t.Errorf("tools[0].argsSchema = %s", got)
	}
	if got := string(skills.Tools[1].ArgsSchema); got != `{"type":"object","properties":{},"required":[],"description":"scratch-b"}` {
		t.Errorf("tools[1].argsSchema = %s", got)
	}
}

// smallInteger reads what ParseFloat reads, for every text it accepts.
func TestSmallIntegerIsParseFloat(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1", "10000", "123456789012345", "-123456789012345", "1234567890123456",
		"1.5", "1e3", "-", "", "01", "9007199254740991", "999999999999999"} {
		got, ok := smallInteger(s)
		if !ok {
			continue
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("smallInteger(%q) = %v, ParseFloat says %v (%v)", s, got, want, err)
		}
	}
}
