package schema

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// streamCases are texts that stress what checkStreaming does differently
// from the tree: problems in several tools and at the root, plain-JSON
// problems after rule problems, and what it leaves to the tree.
var streamCases = []string{
	`{"guidance": "g", "tools": []}`,
	`{"tools": [], "guidance": 7, "extra": {"a": 1, "a": 2}}`,
	`{"guidance": "g"}`,
	`{}`,
	`{"tools": {"not": "an array"}, "guidance": "g"}`,
	`{"tools": [1, "x", null, [1e999], {"name": "a", "name": "b"}], "guidance": "g"}`,
	`{"guidance": "g", "tools": [{"name": "a", "description": "A.", "argsSchema": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1e400}}, "required": ["m"]}},
	  {"name": "a", "description": "", "argsSchema": {"type": "object", "properties": {}, "required": []}, "timeoutMs": 1.5, "x": 1, "x": 2}], "more": [1e999]}`,
	`{"tools": [], "tools": [{"name": 1}]}`,
	`{"guidance": "a", "guidance": "b", "tools": []}`,
	`[{"name": "a", "description": "A.", "argsSchema": {"type": "object", "properties": {}, "required": []}}, {"name": "a"}]`,
	`[]`,
	`"a string"`,
	`{"tools": [}`,
	`{"tools": [] trailing`,
	`{"tools": []} []`,
	"\ufeff{\"guidance\": \"bom\", \"tools\": []}",
	`  {"tools" : [ { "name" : "x" } , { } ] , "guidance" : "" }  `,
}

// checkStreaming says what the tree path says, for every testdata file
// and every case above, in both forms, whenever it answers at all.
func TestStreamingMatchesTree(t *testing.T) {
	inputs := streamCases
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	inputs = append(inputs, string(benchManifest(30)))
	streamed := 0
	for _, in := range inputs {
		if compareStreaming(t, []byte(in)) {
			streamed++
		}
	}
	if streamed < len(inputs)/2 {
		t.Errorf("only %d of %d inputs were checked as a stream", streamed, len(inputs))
	}
}

// compareStreaming reports whether data was checked as a stream, failing t
// when the answer differs from the tree path's.
func compareStreaming(t *testing.T, data []byte) bool {
	t.Helper()
	streamed := false
	text := string(data)
	if s, problems, ok := checkStreaming(text, false); ok {
		streamed = true
		ts, tp := validateSkillsTree(text)
		if !reflect.DeepEqual(problems, tp) || !reflect.DeepEqual(s, ts) {
			t.Errorf("ValidateSkills(%.200q):\nstream %+v\n       %+v\ntree   %+v\n       %+v", data, problems, s, tp, ts)
		}
	}
	if s, problems, ok := checkStreaming(text, true); ok {
		streamed = true
		ts, tp, err := parseManifestTree(text)
		if err != nil || !reflect.DeepEqual(problems, tp) || !reflect.DeepEqual(s, ts) {
			t.Errorf("ParseManifest(%.200q):\nstream %+v\n       %+v\ntree   %+v\n       %+v (%v)", data, problems, s, tp, ts, err)
		}
	}
	return streamed
}

// A large manifest is checked as a stream: the path validate-tools takes.
func TestLargeManifestIsStreamed(t *testing.T) {
	if _, problems, ok := checkStreaming(string(benchManifest(1000)), true); !ok || len(problems) > 0 {
		t.Errorf("ok %v, problems %v", ok, problems)
	}
}

// FuzzStreamingMatchesTree looks for texts where the two paths disagree.
func FuzzStreamingMatchesTree(f *testing.F) {
	for _, c := range streamCases {
		f.Add([]byte(c))
	}
	files, _ := filepath.Glob("testdata/definitions/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { compareStreaming(t, data) })
}
