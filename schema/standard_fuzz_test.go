package schema

import (
	"encoding/json"
	"testing"

	kaptinlin "github.com/kaptinlin/jsonschema"
)

// FuzzStandardMatchesSecondValidator holds inputSchema's checks
// (santhosh-tekuri/jsonschema, behind Pedelec's definition rules) to a
// second implementation, kaptinlin/jsonschema: the fuzz bytes choose a
// schema of draft 2020-12 or draft-07 with the keywords generators write
// and the ones they rarely do, and arguments near it; Pedelec must accept
// the schema, and both must call the arguments valid or both invalid.
// The generator keeps to values on which implementations cannot
// reasonably differ: numbers exact in binary, plain patterns, and for
// each format one value clearly of it and others clearly not.
func FuzzStandardMatchesSecondValidator(f *testing.F) {
	for _, seed := range []string{"", "\x01", "\x00\x07\x03\x02\x05", "\x01\x03\x09\x04\x02\x01\x08", "\x00\x0b\x0c\x0d\x0e\x0f\x10\x11"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &stdGen{s: &fuzzBytes{data: data}}
		schema, args := g.case_()
		compareStandard(t, schema, args)
	})
}

// compareStandard fails when Pedelec and kaptinlin/jsonschema disagree.
func compareStandard(t *testing.T, schema, args string) {
	t.Helper()
	skills, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "t", "description": "Fuzzed.", "inputSchema": json.RawMessage(schema)}}})
	s, problems := ValidateSkills(skills)
	if len(problems) > 0 {
		t.Fatalf("Pedelec refuses generated schema %s: %v", schema, problems)
	}
	r, _ := NewRegistry(s)
	tool, _ := r.Tool("t")
	violations := tool.ValidateArgs([]byte(args))
	for _, v := range violations {
		if v.Path == "" || v.Message == "" || v.Expected == "" || v.Got == "" {
			t.Fatalf("schema %s, args %s: a violation without path, expected, got or message: %+v", schema, args, v)
		}
	}
	c := kaptinlin.NewCompiler()
	c.SetAssertFormat(true)
	sch, err := c.Compile([]byte(schema))
	if err != nil {
		t.Fatalf("Pedelec accepts schema %s, kaptinlin does not compile it: %v", schema, err)
	}
	var inst any
	if err := json.Unmarshal([]byte(args), &inst); err != nil {
		t.Fatalf("generated args %s are not JSON: %v", args, err)
	}
	res := sch.Validate(inst)
	if (len(violations) == 0) != res.IsValid() {
		t.Fatalf("disagreement\nschema: %s\nargs: %s\nPedelec: %+v\nkaptinlin valid: %v", schema, args, violations, res.IsValid())
	}
}

// stdGen writes one schema and arguments near it.
type stdGen struct {
	s      *fuzzBytes
	draft7 bool
	defs   []string // names of the root's definitions, for $refs
}

var (
	stdNames   = []string{"a", "b", "c"}
	stdNumbers = []float64{-1, 0, 0.5, 1, 2, 3, 10}
	// stdFormats: per format, values clearly of it (first) and clearly not.
	stdFormats = map[string][]string{
		"date":  {"2024-01-31", "2024-13-01", "x"},
		"email": {"a@b.co", "ab"},
		"ipv4":  {"1.2.3.4", "1.2.3", "256.1.1.1"},
		"uuid":  {"123e4567-e89b-12d3-a456-426614174000", "nope"},
	}
	stdFormatNames = []string{"date", "email", "ipv4", "uuid"}
	stdStrings     = []string{"", "a", "ab", "abc", "b", "ba", "2024-01-31", "a@b.co", "1.2.3.4", "123e4567-e89b-12d3-a456-426614174000", "x"}
	stdPatterns    = []string{"^a", "b$", "^[a-c]+$", "^.{2}$"}
)

func (g *stdGen) pick(n int) int { return g.s.intn(n) }

func (g *stdGen) case_() (string, string) {
	g.draft7 = g.s.oneIn(3)
	root := map[string]any{"type": "object"}
	if g.draft7 {
		root["$schema"] = draft07URL
	} else if g.s.oneIn(2) {
		root["$schema"] = draft2020URL
	}
	// Definitions first, so the root's nodes can refer to them.
	defsKey := "$defs"
	if g.draft7 {
		defsKey = "definitions"
	}
	if g.s.oneIn(2) {
		defs := map[string]any{}
		for i := range 1 + g.pick(2) {
			name := []string{"D0", "D1"}[i]
			defs[name] = g.node(2)
			g.defs = append(g.defs, name)
		}
		root[defsKey] = defs
	}
	g.object(root, 0)
	schema, _ := json.Marshal(root)
	args, _ := json.Marshal(g.value(3))
	if g.s.oneIn(4) {
		args, _ = json.Marshal(map[string]any{"a": g.value(2), "b": g.value(2)})
	}
	return string(schema), string(args)
}

// object adds object keywords to n.
func (g *stdGen) object(n map[string]any, depth int) {
	props := map[string]any{}
	for _, name := range stdNames[:g.pick(4)] {
		props[name] = g.node(depth + 1)
	}
	n["properties"] = props
	if g.s.oneIn(2) && len(props) > 0 {
		n["required"] = []string{stdNames[g.pick(len(props))]}
	}
	switch g.pick(5) {
	case 0:
		n["additionalProperties"] = false
	case 1:
		n["additionalProperties"] = g.node(depth + 1)
	case 2:
		if !g.draft7 {
			n["unevaluatedProperties"] = false
		}
	}
	switch g.pick(8) {
	case 0:
		n["patternProperties"] = map[string]any{stdPatterns[g.pick(len(stdPatterns))]: g.node(depth + 1)}
	case 1:
		n["propertyNames"] = map[string]any{"maxLength": 1}
	case 2:
		n["minProperties"] = g.pick(3)
	case 3:
		n["maxProperties"] = g.pick(3)
	case 4:
		if g.draft7 {
			n["dependencies"] = map[string]any{"a": []string{"b"}}
		} else {
			n["dependentRequired"] = map[string]any{"a": []string{"b"}}
		}
	case 5:
		if !g.draft7 {
			n["dependentSchemas"] = map[string]any{"a": map[string]any{"required": []string{"c"}}}
		}
	}
}

// node is one subschema.
func (g *stdGen) node(depth int) any {
	if depth > 3 {
		return map[string]any{"type": "string"}
	}
	switch g.pick(16) {
	case 0:
		return g.s.oneIn(2) // a boolean schema
	case 1:
		if len(g.defs) > 0 {
			prefix := "#/$defs/"
			if g.draft7 {
				prefix = "#/definitions/"
			}
			return map[string]any{"$ref": prefix + g.defs[g.pick(len(g.defs))]}
		}
	case 2:
		return map[string]any{[]string{"anyOf", "oneOf", "allOf"}[g.pick(3)]: []any{g.node(depth + 1), g.node(depth + 1)}}
	case 3:
		return map[string]any{"not": g.node(depth + 1)}
	case 4:
		return map[string]any{"if": g.node(depth + 1), "then": g.node(depth + 1), "else": g.node(depth + 1)}
	case 5:
		return map[string]any{"const": g.value(1)}
	case 6:
		return map[string]any{"enum": []any{g.value(1), "E"}} // enum items are unique (draft-07's meta-schema)
	case 7:
		return map[string]any{"type": []string{"string", "null"}}
	}
	n := map[string]any{}
	typ := []string{"string", "number", "integer", "boolean", "array", "object", "null"}[g.pick(7)]
	if !g.s.oneIn(4) { // untyped nodes keep their keywords for any value
		n["type"] = typ
	}
	switch typ {
	case "string":
		switch g.pick(4) {
		case 0:
			n["minLength"] = g.pick(3)
		case 1:
			n["maxLength"] = g.pick(3)
		case 2:
			n["pattern"] = stdPatterns[g.pick(len(stdPatterns))]
		case 3:
			n["format"] = stdFormatNames[g.pick(len(stdFormatNames))]
		}
	case "number", "integer":
		k := []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}[g.pick(5)]
		v := stdNumbers[g.pick(len(stdNumbers))]
		if k == "multipleOf" {
			v = []float64{0.5, 2, 3}[g.pick(3)]
		}
		n[k] = v
	case "array":
		g.array(n, depth)
	case "object":
		g.object(n, depth)
	}
	return n
}

// array adds array keywords to n, in the draft's spelling of tuples.
func (g *stdGen) array(n map[string]any, depth int) {
	switch g.pick(6) {
	case 0:
		n["items"] = g.node(depth + 1)
	case 1:
		tuple := []any{g.node(depth + 1)}
		if g.draft7 {
			n["items"] = tuple
			n["additionalItems"] = g.s.oneIn(2)
		} else {
			n["prefixItems"] = tuple
			n["items"] = g.s.oneIn(2)
		}
	case 2:
		n["contains"] = g.node(depth + 1)
		if !g.draft7 && g.s.oneIn(2) {
			n["minContains"] = 2
		}
	case 3:
		n["uniqueItems"] = true
	case 4:
		n["minItems"] = 1 + g.pick(2)
	case 5:
		n["maxItems"] = g.pick(2)
	}
}

// value is an argument value from the generator's vocabulary.
func (g *stdGen) value(depth int) any {
	switch g.pick(7) {
	case 0:
		return nil
	case 1:
		return g.s.oneIn(2)
	case 2:
		return stdNumbers[g.pick(len(stdNumbers))]
	case 3:
		f := stdFormats[stdFormatNames[g.pick(len(stdFormatNames))]]
		return f[g.pick(len(f))]
	case 4:
		if depth > 0 {
			out := []any{}
			for range g.pick(4) {
				out = append(out, g.value(depth-1))
			}
			return out
		}
	case 5:
		if depth > 0 {
			out := map[string]any{}
			for _, name := range stdNames[:g.pick(4)] {
				out[name] = g.value(depth - 1)
			}
			if g.s.oneIn(4) {
				out["zz"] = 1
			}
			return out
		}
	}
	return stdStrings[g.pick(len(stdStrings))]
}

// TestStandardRegressions keeps what FuzzStandardMatchesSecondValidator
// found.
func TestStandardRegressions(t *testing.T) {
	for _, tc := range []struct{ schema, args string }{
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/D0"}},"$defs":{"D0":{"type":"integer","exclusiveMinimum":0}},"additionalProperties":false}`, `{"a":0}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}],"additionalItems":false}}}`, `{"a":["x",1]}`},
	} {
		compareStandard(t, tc.schema, tc.args)
	}
}
