package commands

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// validateCLI runs `pedelec validate-tools <args>` in-process with stdin.
func validateCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(append([]string{"pedelec", "validate-tools"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeManifest(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const validManifest = `{"guidance": "Use the tools.", "tools": [
  {"name": "update_counter", "description": "Change the counter by a signed delta.", "timeoutMs": 10000,
   "argsSchema": {"type": "object", "properties": {"delta": {"type": "integer", "minimum": -100, "maximum": 100}}, "required": ["delta"]}}]}`

const invalidManifest = `[
  {"name": "update counter", "description": "", "argsSchema": {"type": "object"}},
  {"name": "b", "description": "B.", "input": {"x": "number"}}
]`

func TestValidateToolsValidFile(t *testing.T) {
	code, out, errOut := validateCLI(t, "", writeManifest(t, validManifest))
	if code != wire.ExitOK || !strings.HasSuffix(out, "tools.json: valid (1 tool)\n") || errOut != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestValidateToolsInvalidStdin(t *testing.T) {
	code, out, _ := validateCLI(t, invalidManifest, "-")
	want := `tools[0].name: name "update counter" contains " ", which is not allowed; use only ASCII letters, digits, _, . and - (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$)
tools[0].description: description is empty; say what the tool does, what it reads or changes, and when to prefer another tool
tools[1].input: the legacy "input" shorthand is not supported; rename it to "argsSchema" and write an object schema: {"type": "object", "properties": {...}, "required": [...]}
<stdin>: 3 problems (INVALID_INPUT)
`
	if code != wire.ExitFailed || out != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", code, out, want)
	}
}

func TestValidateToolsJSONReport(t *testing.T) {
	for _, tc := range []struct {
		name, manifest string
		valid          bool
		code, problems int
	}{
		{"valid", validManifest, true, wire.ExitOK, 0},
		{"invalid", invalidManifest, false, wire.ExitFailed, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := validateCLI(t, tc.manifest, "--format", "json", "-")
			var report struct {
				Valid    bool             `json:"valid"`
				Problems []schema.Problem `json:"problems"`
				Code     string           `json:"code"`
			}
			if err := json.Unmarshal([]byte(out), &report); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, out)
			}
			if code != tc.code || report.Valid != tc.valid || len(report.Problems) != tc.problems {
				t.Errorf("exit %d, report %+v", code, report)
			}
			if !tc.valid && report.Code != "INVALID_INPUT" {
				t.Errorf("code = %q", report.Code)
			}
			if tc.valid && (report.Problems == nil || strings.Contains(out, `"code"`)) {
				t.Errorf("a valid report has problems [] and no code: %s", out)
			}
		})
	}
}

func TestValidateToolsFormatFromEnv(t *testing.T) {
	t.Setenv("PEDELEC_VALIDATE_FORMAT", "json")
	code, out, _ := validateCLI(t, validManifest, "-")
	if code != wire.ExitOK || !strings.Contains(out, `"valid": true`) {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

func TestValidateToolsUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stdin  string
		args   []string
		stderr string
	}{
		{"syntax error", "{\n  \"tools\": [\n    {\"name\": \"a\",}\n  ]\n}\n", []string{"-"},
			`pedelec: <stdin>:3:18: unexpected "}", expected a quoted object key (the manifest is not JSON)`},
		{"empty input", "", []string{"-"}, "pedelec: <stdin>:1:1: unexpected end of input"},
		{"missing file", "", []string{filepath.Join(os.TempDir(), "no-such-dir", "tools.json")}, "pedelec: cannot read the manifest: open "},
		{"no argument", "", nil, "pedelec: validate-tools needs a manifest file, or - to read stdin"},
		{"two arguments", "", []string{"a.json", "b.json"}, "pedelec: validate-tools takes one manifest file"},
		{"bad format", validManifest, []string{"--format", "yaml", "-"}, `pedelec: --format: "yaml" is not text or json`},
		{"unknown flag", "", []string{"--strict", "-"}, "pedelec: flag provided but not defined: -strict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := validateCLI(t, tc.stdin, tc.args...)
			if code != wire.ExitUsage || !strings.HasPrefix(errOut, tc.stderr) {
				t.Errorf("exit %d, stderr %q, want exit 2 and %q", code, errOut, tc.stderr)
			}
			if tc.name != "unknown flag" && out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
}

func TestValidateToolsPrintSchema(t *testing.T) {
	code, out, _ := validateCLI(t, "", "--print-schema")
	want, _ := schema.ManifestJSONSchema()
	if code != wire.ExitOK || out != string(want)+"\n" {
		t.Errorf("exit %d, stdout is not ManifestJSONSchema():\n%s", code, out)
	}
}

// TestValidateToolsSeedExamples runs every valid definition case of the
// schema package through the command, as an app's CI would.
func TestValidateToolsSeedExamples(t *testing.T) {
	files, _ := filepath.Glob("../schema/testdata/definitions/valid_*.json")
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		if code, out, errOut := validateCLI(t, "", f); code != wire.ExitOK {
			t.Errorf("%s: exit %d\n%s%s", f, code, out, errOut)
		}
	}
	if len(files) == 0 {
		t.Fatal("no seed examples found")
	}
}
