package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FuzzValidatorMatchesOracle holds Pedelec's validator to a general JSON
// Schema validator (santhosh-tekuri/jsonschema, draft 2020-12): the fuzz
// bytes choose a schema within the subset, which Pedelec must accept and
// the oracle must compile, and arguments near that schema's valid ones;
// both must call them valid or both invalid. The generator
// (oracle_gen_test.go) keeps clear of the deviations docs/schema.md
// documents.
func FuzzValidatorMatchesOracle(f *testing.F) {
	for _, seed := range []string{
		"",
		"\x05\x00\x00\x04\x02\x01\x00\x00\x01",
		"\x05\x00\x00\x04\x04\x03\x00\x01\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x07\x05",
		"\x05\x00\x00\x04\x01\x04\x00\x00\x02\x03\x03\x01\x01\x00",
		"\x05\x00\x00\x04\x00\x00\x04\x01\x00\x00\x00\x00\x00\x00\x08\x01\x03",
		"\x05\x00\x00\x04\x03\x04\x01\x01\x02\x00\x00\x00\x00\x00\x00\x00\x00\x02\x0e\x03",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &fuzzBytes{data: data}
		g := s.schema(0, "object")
		inst := s.instance(g, 0)
		for range s.intn(3) {
			inst = s.mutate(inst)
		}
		mine, theirs := g.node.json(false), g.node.json(true)
		args := inst.json(false)
		compareWithOracle(t, mine, theirs, args)
	})
}

// compareWithOracle fails when Pedelec and the oracle disagree about args;
// mine is the schema as Pedelec is given it, theirs as the oracle is (the
// same but for the spelling of patterns).
func compareWithOracle(t *testing.T, mine, theirs, args string) {
	t.Helper()
	tool := compileFuzzTool(t, mine)
	violations := tool.ValidateArgs([]byte(args))
	for _, v := range violations {
		if v.Path == "" || v.Message == "" || v.Expected == "" || v.Got == "" {
			t.Fatalf("schema %s, args %s: a violation without path, expected, got or message: %+v", mine, args, v)
		}
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(theirs))
	if err != nil {
		t.Fatalf("oracle schema %s: %v", theirs, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("urn:fuzz", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("urn:fuzz")
	if err != nil {
		t.Fatalf("Pedelec accepts schema %s, the oracle does not compile %s: %v", mine, theirs, err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		t.Fatalf("generated args %s are not JSON: %v", args, err)
	}
	oracleErr := sch.Validate(inst)
	if (len(violations) == 0) != (oracleErr == nil) {
		t.Fatalf("disagreement\nschema (Pedelec): %s\nschema (oracle):  %s\nargs: %s\nPedelec: %v\noracle: %v", mine, theirs, args, violations, oracleErr)
	}
}

// compileFuzzTool is mustCompile with the schema in the failure message.
func compileFuzzTool(t *testing.T, argsSchema string) *CompiledTool {
	t.Helper()
	skills, _ := json.Marshal(map[string]any{"tools": []any{
		map[string]any{"name": "t", "description": "Fuzzed tool.", "argsSchema": json.RawMessage(argsSchema)},
	}})
	s, problems := ValidateSkills(skills)
	if len(problems) > 0 {
		t.Fatalf("Pedelec refuses generated schema %s: %v", argsSchema, problems)
	}
	r, err := NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := r.Tool("t")
	return tool
}

// TestOracleRegressions keeps what FuzzValidatorMatchesOracle found, each a
// schema as Pedelec and as the oracle read it, and arguments they once
// disagreed on.
func TestOracleRegressions(t *testing.T) {
	for _, tc := range []struct{ mine, theirs, args string }{
		// A surrogate pair of \u escapes is one character in ECMA-262; RE2
		// read two surrogates, which no string holds.
		{`{"type":"object","properties":{"s":{"type":"string","pattern":"^\\uD83D\\uDE00\\u002E$"}}}`,
			`{"type":"object","properties":{"s":{"type":"string","pattern":"^😀\\.$"}}}`, `{"s":"😀."}`},
		{`{"type":"object","properties":{"s":{"type":"string","pattern":"^[\\uD83D\\uDE00-\\uD83D\\uDE4F]$"}}}`,
			`{"type":"object","properties":{"s":{"type":"string","pattern":"^[😀-🙏]$"}}}`, `{"s":"🙂"}`},
	} {
		compareWithOracle(t, tc.mine, tc.theirs, tc.args)
	}
}
