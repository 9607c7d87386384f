package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -update rewrites the golden files from what the code does now; review the
// diff before committing it.
var update = flag.Bool("update", false, "rewrite testdata golden files")

// cases lists the inputs of a testdata directory (the .json files that are
// not goldens), sorted by name.
func cases(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".golden.json") {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no cases in testdata/%s", dir)
	}
	return out
}

func goldenPath(input string) string {
	return strings.TrimSuffix(input, ".json") + ".golden.json"
}

// checkGolden compares got, as indented JSON, with the golden file.
func checkGolden(t *testing.T, input string, got any) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	golden := goldenPath(input)
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./schema -update to create it)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s--- want\n%s", input, b.String(), want)
	}
}

// TestDefinitions replays testdata/definitions: each <case>.json is a skills
// object, each <case>.golden.json the exact problems. The SDK replays the
// same files, so Core and the browser report identical messages.
func TestDefinitions(t *testing.T) {
	for _, in := range cases(t, "definitions") {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".json"), func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			skills, problems := ValidateSkills(raw)
			if problems == nil {
				problems = []Problem{}
			}
			valid := strings.HasPrefix(filepath.Base(in), "valid_")
			if valid != (len(problems) == 0) {
				t.Errorf("valid_ prefix says valid=%v, got problems %v", valid, problems)
			}
			if len(problems) == 0 {
				if _, err := NewRegistry(skills); err != nil {
					t.Errorf("valid skills do not compile: %v", err)
				}
			}
			checkGolden(t, in, problems)
		})
	}
}

// manifestResult is the golden shape of a ParseManifest case.
type manifestResult struct {
	Tools       []string     `json:"tools,omitempty"`
	Problems    []Problem    `json:"problems"`
	SyntaxError *SyntaxError `json:"syntaxError,omitempty"`
}

// TestParseManifest covers what only a file can hold: the bare-array form,
// repeated keys, numbers beyond a double, a BOM and syntax errors.
func TestParseManifest(t *testing.T) {
	for _, in := range cases(t, "manifest") {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".json"), func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			skills, problems, err := ParseManifest(string(raw))
			res := manifestResult{Problems: problems}
			if res.Problems == nil {
				res.Problems = []Problem{}
			}
			var se *SyntaxError
			if errors.As(err, &se) {
				res.SyntaxError = se
			} else if err != nil {
				t.Fatalf("error is %T, want *SyntaxError: %v", err, err)
			}
			for _, tool := range skills.Tools {
				res.Tools = append(res.Tools, tool.Name)
			}
			checkGolden(t, in, res)
		})
	}
}

func TestValidateArgs(t *testing.T) {
	for _, in := range cases(t, "args") {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".json"), func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			// A case is {"argsSchema": ..., "args": <JSON value>}, or
			// "argsText" for raw text that JSON cannot hold.
			var c map[string]json.RawMessage
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			tool := mustCompile(t, c["argsSchema"])
			args, ok := c["args"]
			if text, isText := c["argsText"]; isText {
				var s string
				if err := json.Unmarshal(text, &s); err != nil {
					t.Fatal(err)
				}
				args, ok = []byte(s), true
			}
			if !ok {
				t.Fatal("case has neither args nor argsText")
			}
			v := tool.ValidateArgs(args)
			if v == nil {
				v = []Violation{}
			}
			checkGolden(t, in, v)
		})
	}
}

// mustCompile validates a one-tool manifest around argsSchema and compiles it.
func mustCompile(t testing.TB, argsSchema json.RawMessage) *CompiledTool {
	t.Helper()
	skills, _ := json.Marshal(map[string]any{"guidance": "", "tools": []any{
		map[string]any{"name": "t", "description": "Test tool.", "argsSchema": argsSchema},
	}})
	s, problems := ValidateSkills(skills)
	if len(problems) > 0 {
		t.Fatalf("argsSchema is not valid: %v", problems)
	}
	r, err := NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := r.Tool("t")
	return tool
}
