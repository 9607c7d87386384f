package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/invopop/jsonschema"
)

// TestManifestSchemaFile keeps the shipped manifest.schema.json equal to
// what invopop/jsonschema generates from the Go types today. Generating it
// here rather than in the binary keeps invopop, its YAML library and go/parser
// out of every pedelec process (docs/decisions.md). After changing the
// manifest types or the subset: go test ./schema -run ManifestSchemaFile -update
func TestManifestSchemaFile(t *testing.T) {
	want, err := generateManifestJSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(manifestSchemaFile, append(want, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(manifestSchemaFile)
	if !bytes.Equal(bytes.TrimSuffix(got, []byte("\n")), want) {
		t.Fatalf("%s is stale: run go test ./schema -run ManifestSchemaFile -update", manifestSchemaFile)
	}
}

// generateManifestJSONSchema builds the JSON Schema (draft 2020-12) of a
// manifest file. The skills and tool shapes come from the Go types, so they
// cannot drift from what Core reads; argsSchema, a json.RawMessage in Go, is
// described by a hand-written schema of the supported subset.
func generateManifestJSONSchema() ([]byte, error) {
	r := &jsonschema.Reflector{
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == reflect.TypeFor[json.RawMessage]() {
				return &jsonschema.Schema{Ref: "#/$defs/ArgsSchema"}
			}
			return nil
		},
	}
	root := r.Reflect(&Skills{})
	if s, ok := root.Definitions["Skills"]; ok {
		s.Required = []string{"tools"} // guidance may be left out: it is then empty
	}
	if tool, ok := root.Definitions["Tool"]; ok {
		// inputSchema is any standard JSON Schema of an object, which
		// validate-tools checks; beside it, outputSchema is too.
		if p, ok := tool.Properties.Get("inputSchema"); ok {
			tool.Properties.Set("inputSchema", &jsonschema.Schema{Type: "object", Description: p.Description})
		}
		if p, ok := tool.Properties.Get("outputSchema"); ok {
			tool.Properties.Set("outputSchema", &jsonschema.Schema{Type: "object", Description: p.Description})
		}
		tool.Required = []string{"name", "description"}
		tool.OneOf = []*jsonschema.Schema{{Required: []string{"argsSchema"}}, {Required: []string{"inputSchema"}}}
	}
	for name, def := range subsetDefinitions() {
		root.Definitions[name] = def
	}
	root.ID = manifestSchemaID
	root.Ref = ""
	root.Description = "A Pedelec tools manifest: a skills object {guidance, tools}, or a bare array of tool definitions."
	root.OneOf = []*jsonschema.Schema{
		{Ref: "#/$defs/Skills"},
		{Type: "array", Items: &jsonschema.Schema{Ref: "#/$defs/Tool"}},
	}
	return json.MarshalIndent(root, "", "  ")
}

// subsetDefinitions describes the ToolArgsSchema subset: one closed object
// schema per node type (so an unsupported keyword is an editor error too),
// and the root, which must be an object node.
func subsetDefinitions() jsonschema.Definitions {
	node := &jsonschema.Schema{Ref: "#/$defs/SchemaNode"}
	count := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "integer", Minimum: "0"} }
	enumOf := func(t string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "array", MinItems: ptr(uint64(1)), Items: &jsonschema.Schema{Type: t}}
	}
	typed := map[string]map[string]*jsonschema.Schema{
		"string": {"enum": enumOf("string"), "minLength": count(), "maxLength": count(),
			"pattern": {Type: "string", Format: "regex"}},
		"number":  {"enum": enumOf("number"), "minimum": {Type: "number"}, "maximum": {Type: "number"}},
		"integer": {"enum": enumOf("integer"), "minimum": {Type: "number"}, "maximum": {Type: "number"}},
		"boolean": {"enum": enumOf("boolean")},
		"array":   {"items": node, "minItems": count(), "maxItems": count(), "uniqueItems": {Type: "boolean"}},
		"object": {"properties": {Type: "object", AdditionalProperties: node},
			"required": {Type: "array", Items: &jsonschema.Schema{Type: "string"}}},
	}
	common := func(s *jsonschema.Schema) {
		s.Properties.Set("description", &jsonschema.Schema{Type: "string"})
		s.Properties.Set("default", jsonschema.TrueSchema)
		s.Properties.Set("examples", &jsonschema.Schema{Type: "array"})
		s.Properties.Set("oneOf", &jsonschema.Schema{Type: "array", MinItems: ptr(uint64(1)), Items: node})
	}
	var variants []*jsonschema.Schema
	for _, t := range nodeTypes {
		s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), Required: []string{"type"},
			AdditionalProperties: jsonschema.FalseSchema}
		s.Properties.Set("type", &jsonschema.Schema{Const: t})
		common(s)
		for _, k := range typeKeywords[t] {
			s.Properties.Set(k, typed[t][k])
		}
		variants = append(variants, s)
	}
	oneOfOnly := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), Required: []string{"oneOf"},
		AdditionalProperties: jsonschema.FalseSchema}
	common(oneOfOnly)
	variants = append(variants, oneOfOnly)

	rootType := jsonschema.NewProperties()
	rootType.Set("type", &jsonschema.Schema{Const: "object"})
	return jsonschema.Definitions{
		"SchemaNode": {Description: "A node of Pedelec's ToolArgsSchema subset.", OneOf: variants},
		"ArgsSchema": {
			Description: "The tool's argument schema: an object node of the supported subset.",
			AllOf:       []*jsonschema.Schema{node, {Properties: rootType, Required: []string{"type"}}},
		},
	}
}

func ptr[T any](v T) *T { return &v }
