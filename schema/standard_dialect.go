package schema

import (
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The standard dialects of inputSchema: JSON Schema as WebMCP, MCP and the
// libraries that write schemas (Zod 4, TypeBox, zod-to-json-schema) use
// it. Two drafts, named by $schema; none named is 2020-12, which MCP and
// Zod 4 write. Every keyword of the draft is validated with its full
// meaning by santhosh-tekuri/jsonschema; a key that is not a keyword of the
// draft is refused, so nothing in a schema looks enforced and is not.

// dialect is one accepted draft.
type dialect struct {
	name  string // as messages say it: "draft 2020-12"
	draft *jsonschema.Draft
	// keyword reports whether k is a keyword of the draft.
	keyword func(k string) bool
	// idIsAnchor: in draft-07 an $id of only a fragment ("#foo") names a
	// place in the document rather than a document.
	idIsAnchor bool
}

const (
	draft2020URL = "https://json-schema.org/draft/2020-12/schema"
	draft07URL   = "http://json-schema.org/draft-07/schema#"
)

// acceptedSchemas is what the $schema message lists.
const acceptedSchemas = `"` + draft2020URL + `" (the default when $schema is absent) or "` + draft07URL + `"`

func draft2020() dialect {
	return dialect{name: "draft 2020-12", draft: jsonschema.Draft2020, keyword: keyword2020}
}

func draft07() dialect {
	return dialect{name: "draft-07", draft: jsonschema.Draft7, keyword: keyword07, idIsAnchor: true}
}

// dialectOf reads a $schema value: the two drafts, written with http or
// https and with or without the empty fragment, as generators write them.
func dialectOf(s string) (dialect, bool) {
	u := strings.TrimSuffix(s, "#")
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		u = rest
	} else if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	}
	switch u {
	case "json-schema.org/draft/2020-12/schema":
		return draft2020(), true
	case "json-schema.org/draft-07/schema":
		return draft07(), true
	}
	return dialect{}, false
}

// keyword2020 lists draft 2020-12's vocabularies (core, applicator,
// unevaluated, validation, meta-data, format, content), plus the two
// keywords its meta-schema keeps for older schemas: "definitions", which
// $ref may point into, and "dependencies", which the validator reads as
// draft-07 did.
func keyword2020(k string) bool {
	switch k {
	case "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
		"prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
		"dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
		"unevaluatedItems", "unevaluatedProperties",
		"type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
		"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
		"maxProperties", "minProperties", "required", "dependentRequired",
		"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
		"format", "contentEncoding", "contentMediaType", "contentSchema",
		"definitions", "dependencies":
		return true
	}
	return false
}

// keyword07 lists draft-07's keywords.
func keyword07(k string) bool {
	switch k {
	case "$schema", "$id", "$ref", "$comment", "definitions",
		"title", "description", "default", "readOnly", "writeOnly", "examples",
		"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
		"maxLength", "minLength", "pattern", "additionalItems", "items", "maxItems", "minItems", "uniqueItems", "contains",
		"maxProperties", "minProperties", "required", "additionalProperties", "properties", "patternProperties",
		"dependencies", "propertyNames", "const", "enum", "type", "format",
		"contentMediaType", "contentEncoding", "if", "then", "else", "allOf", "anyOf", "oneOf", "not":
		return true
	}
	return false
}

// beside07Ref are the keywords a draft-07 node may have beside $ref. Draft-07
// ignores every sibling of $ref; these are ignored harmlessly (annotations,
// and definitions, which $ref reaches by its pointer).
func beside07Ref(k string) bool {
	switch k {
	case "$ref", "$schema", "$comment", "definitions", "title", "description", "default", "examples", "readOnly", "writeOnly":
		return true
	}
	return false
}

// subschemaShape says how a keyword holds schemas: one schema, an array of
// them, or an object whose values are schemas. items is one schema in
// 2020-12 and one or an array in draft-07; dependencies' values are
// schemas or arrays of names.
type subschemaShape uint8

const (
	noSubschema subschemaShape = iota
	oneSubschema
	subschemaArray
	subschemaMap
)

func shapeOf(k string) subschemaShape {
	switch k {
	case "not", "if", "then", "else", "contains", "additionalProperties", "propertyNames",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems", "items":
		return oneSubschema
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return subschemaArray
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
		return subschemaMap
	}
	return noSubschema
}

// knownFormat reports whether Core checks format f. The validator asserts
// these and ignores any other name, so another name is refused rather than
// left unchecked.
func knownFormat(f string) bool {
	switch f {
	case "date-time", "date", "time", "duration", "period", "email", "hostname", "ipv4", "ipv6",
		"uri", "uri-reference", "iri", "iri-reference", "uri-template", "uuid",
		"json-pointer", "relative-json-pointer", "regex", "semver":
		return true
	}
	return false
}

const knownFormats = "date-time, date, time, duration, period, email, hostname, ipv4, ipv6, uri, uri-reference, iri, iri-reference, uri-template, uuid, json-pointer, relative-json-pointer, regex, semver"

// knownContent: contentEncoding and contentMediaType values the validator
// decodes and checks; another value would be ignored.
func knownEncoding(e string) bool  { return e == "base64" }
func knownMediaType(m string) bool { return m == "application/json" }
