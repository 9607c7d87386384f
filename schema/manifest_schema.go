package schema

import (
	"bytes"
	_ "embed"
)

// manifestSchemaID names the schema, so an editor can cache it.
const manifestSchemaID = "https://github.com/kaoruisaac/pedelec/schema/manifest.schema.json"

const manifestSchemaFile = "manifest.schema.json"

// manifestSchema is generated from the Go types by invopop/jsonschema in
// TestManifestSchemaFile, which fails when it is stale.
//
//go:embed manifest.schema.json
var manifestSchema []byte

// ManifestJSONSchema returns the JSON Schema (draft 2020-12) of a manifest
// file, for editors to check a manifest as it is typed. The rules no JSON
// Schema can express (unique names, required names being properties,
// min <= max, patterns compiling) are left to validate-tools.
func ManifestJSONSchema() ([]byte, error) {
	return bytes.Clone(bytes.TrimSuffix(manifestSchema, []byte("\n"))), nil
}
