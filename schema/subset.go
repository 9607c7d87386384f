package schema

import (
	"math"
	"slices"
	"strings"
)

// The ToolArgsSchema subset. Small on purpose: every keyword here is one the
// SDK, Core and a model read the same way, and the validator's messages stay
// explainable. Anything else is refused by name, never silently ignored: a
// keyword that is ignored is a rule that looks enforced and is not.

// maxSchemaDepth bounds how deeply schema nodes nest. Real argument schemas
// are a few levels deep; this keeps hostile manifests cheap to check.
const maxSchemaDepth = 32

// nodeTypes are the values of "type", in the order messages list them.
var nodeTypes = []string{"string", "number", "integer", "boolean", "array", "object"}

// anyNodeKeywords may appear on every node.
var anyNodeKeywords = []string{"description", "default", "examples", "type", "oneOf"}

// typeKeywords lists, per type, the keywords that apply to it.
var typeKeywords = map[string][]string{
	"string":  {"enum", "minLength", "maxLength", "pattern"},
	"number":  {"enum", "minimum", "maximum"},
	"integer": {"enum", "minimum", "maximum"},
	"boolean": {"enum"},
	"array":   {"items", "minItems", "maxItems", "uniqueItems"},
	"object":  {"properties", "required"},
}

// keywordTypes is typeKeywords inverted: which types a keyword applies to,
// nil for a keyword of no type. A switch, not a map built at package init:
// the check asks for every keyword of every schema node, and a lookup
// hashed each key (docs/performance.md). TestKeywordTypes holds it to
// typeKeywords.
func keywordTypes(k string) []string {
	switch k {
	case "enum":
		return enumTypes
	case "minLength", "maxLength", "pattern":
		return stringType
	case "minimum", "maximum":
		return numberTypes
	case "items", "minItems", "maxItems", "uniqueItems":
		return arrayType
	case "properties", "required":
		return objectType
	}
	return nil
}

var (
	enumTypes   = []string{"string", "number", "integer", "boolean"}
	stringType  = []string{"string"}
	numberTypes = []string{"number", "integer"}
	arrayType   = []string{"array"}
	objectType  = []string{"object"}
)

// unsupported names JSON Schema keywords people reach for, with what to do
// instead. A keyword not here and not supported gets the generic message.
var unsupported = map[string]string{
	"$ref":                  "inline the referenced schema where it is used",
	"$defs":                 "inline each definition where it is used",
	"definitions":           "inline each definition where it is used",
	"$schema":               "remove it; the dialect is fixed",
	"$id":                   "remove it",
	"$anchor":               "remove it and inline the schema",
	"$comment":              `remove it, or move the text into "description"`,
	"title":                 `use "description"`,
	"additionalProperties":  "remove it; undeclared properties are accepted and the handler should ignore them",
	"patternProperties":     `declare each property in "properties"`,
	"propertyNames":         "check property names in the handler",
	"minProperties":         `list the needed properties in "required"`,
	"maxProperties":         "check it in the handler",
	"dependentRequired":     "check it in the handler",
	"dependentSchemas":      "check it in the handler",
	"unevaluatedProperties": "remove it; undeclared properties are accepted and the handler should ignore them",
	"unevaluatedItems":      "remove it",
	"prefixItems":           `use one "items" schema (with "oneOf" if items differ)`,
	"additionalItems":       `use one "items" schema`,
	"contains":              "check it in the handler",
	"minContains":           "check it in the handler",
	"maxContains":           "check it in the handler",
	"format":                `use "pattern", or describe the format in "description" and check it in the handler`,
	"exclusiveMinimum":      `use "minimum" (for an integer, the bound plus one)`,
	"exclusiveMaximum":      `use "maximum" (for an integer, the bound minus one)`,
	"multipleOf":            `describe it in "description" and check it in the handler`,
	"const":                 `use "enum" with one value`,
	"allOf":                 "merge the schemas into one node",
	"anyOf":                 `use "oneOf" with options that do not overlap`,
	"not":                   "check it in the handler",
	"if":                    `use "oneOf", or check it in the handler`,
	"then":                  `use "oneOf", or check it in the handler`,
	"else":                  `use "oneOf", or check it in the handler`,
	"nullable":              `leave the property out of "required" instead of allowing null`,
	"contentEncoding":       "check it in the handler",
	"contentMediaType":      "check it in the handler",
	"contentSchema":         "check it in the handler",
	"readOnly":              "remove it",
	"writeOnly":             "remove it",
	"deprecated":            `remove it, or say so in "description"`,
}

// argsSchema checks a tool's argsSchema: its root must be an object node.
func (c *checker) argsSchema(v *value, p loc) {
	if v.kind != kindObject {
		c.add(p, `argsSchema must be an object schema such as {"type": "object", "properties": {...}, "required": [...]}; got %s`, v.describe())
		return
	}
	t, ok := v.get("type")
	switch {
	case !ok:
		c.add(p.child("type"), `the argsSchema root must have "type": "object" (arguments are always a JSON object); add it, with {"type": "object", "properties": {}, "required": []} for a tool without arguments`)
	case t.kind == kindString && t.s != "object":
		c.add(p.child("type"), `the argsSchema root must have "type": "object" (arguments are always a JSON object); got %s — wrap the value in a property`, quoteShort(t.s))
	}
	// The root's missing type was just reported; check the rest as the
	// object it has to be, so each mistake is reported once.
	c.node(v, p, 0, "object")
}

// outputSchema checks a tool's outputSchema: like argsSchema, its root is
// an object node, as MCP's outputSchema and structuredContent must be.
func (c *checker) outputSchema(v *value, p loc) {
	if v.kind != kindObject {
		c.add(p, `outputSchema must be an object schema such as {"type": "object", "properties": {...}, "required": [...]}; got %s`, v.describe())
		return
	}
	t, ok := v.get("type")
	switch {
	case !ok:
		c.add(p.child("type"), `the outputSchema root must have "type": "object" (a declared result is a JSON object, as MCP's structuredContent is); add it`)
	case t.kind == kindString && t.s != "object":
		c.add(p.child("type"), `the outputSchema root must have "type": "object" (a declared result is a JSON object, as MCP's structuredContent is); got %s — return an object with the value in a property`, quoteShort(t.s))
	}
	c.node(v, p, 0, "object")
}

// node checks one schema node and recurses into properties, items and oneOf.
// assume is the type to judge keywords by when "type" is absent ("" for
// none: only the root assumes one).
func (c *checker) node(v *value, p loc, depth int, assume string) {
	if v.kind != kindObject {
		if v.kind == kindBool {
			c.add(p, `boolean schemas are not supported; write an object schema such as {"type": "string"}`)
		} else {
			c.add(p, `a schema must be an object such as {"type": "string"}; got %s`, v.describe())
		}
		return
	}
	if depth > maxSchemaDepth {
		c.add(p, "schemas nested more than %d levels deep are not supported; flatten the arguments", maxSchemaDepth)
		return
	}

	typ, typeOK := c.nodeType(v, p, assume)
	for _, m := range v.obj {
		kp := p.child(m.key)
		// The keyword sets are disjoint, so the most common (a type's
		// keywords) is asked first.
		types := keywordTypes(m.key)
		switch {
		case types != nil:
			switch {
			case typeOK && slices.Contains(types, typ):
				c.typeKeyword(v, typ, m.key, m.val, kp, depth)
			case typeOK:
				c.add(kp, "%s applies to %s schemas, not %s; remove it or change the type", m.key, orList(types), typ)
			case typ == "":
				c.add(kp, `%s needs a "type" (it applies to %s schemas); add the type, or move %s into each oneOf option`, m.key, orList(types), m.key)
			}
		case slices.Contains(anyNodeKeywords, m.key):
			c.anyNodeKeyword(m.key, m.val, kp, depth)
		case unsupported[m.key] != "":
			c.add(kp, "%s is not supported by Pedelec's schema subset; %s", m.key, unsupported[m.key])
		default:
			c.add(kp, "%s is not a keyword of Pedelec's schema subset; %s", quoteShort(m.key), supportedHint(typ, typeOK))
		}
	}
	if typeOK {
		c.pairs(v, p, typ)
	}
}

// nodeType reads "type". ok is false when it is absent or unusable, and then
// type-specific keywords are not judged, so one mistake gives one problem.
func (c *checker) nodeType(v *value, p loc, assume string) (string, bool) {
	t, present := v.get("type")
	if !present {
		if assume != "" {
			return assume, true
		}
		// A node built from $ref or allOf/anyOf is refused for that keyword;
		// a second "no type" problem would only repeat it.
		if !hasAny(v, "oneOf", "$ref", "allOf", "anyOf") {
			c.add(p, `the schema has no "type"; add "type" (one of %s), or "oneOf" with the allowed forms`, orList(nodeTypes))
		}
		return "", false
	}
	switch {
	case t.kind == kindArray:
		c.add(p.child("type"), `type must be one string; a list of types is not supported, so use "oneOf" with one schema per type`)
	case t.kind != kindString:
		c.add(p.child("type"), "type must be a string, one of %s; got %s", orList(nodeTypes), t.describe())
	case t.s == "null":
		c.add(p.child("type"), `type "null" is not supported; to make a value optional, leave it out of "required"`)
	case !slices.Contains(nodeTypes, t.s):
		c.add(p.child("type"), "type %s is not supported; use one of %s", quoteShort(t.s), orList(nodeTypes))
	default:
		return t.s, true
	}
	return "invalid", false
}

func (c *checker) anyNodeKeyword(k string, v *value, p loc, depth int) {
	switch k {
	case "description":
		if v.kind != kindString {
			c.add(p, "description must be a string; got %s", v.describe())
		}
	case "examples":
		if v.kind != kindArray {
			c.add(p, "examples must be an array of example values; got %s (wrap it in [ ])", v.describe())
		}
	case "oneOf":
		switch {
		case v.kind != kindArray:
			c.add(p, "oneOf must be an array of schemas; got %s", v.describe())
		case len(v.arr) == 0:
			c.add(p, "oneOf is empty, so no value could ever match; list at least one schema, or remove oneOf")
		default:
			for i, e := range v.arr {
				c.node(e, p.at(i), depth+1, "")
			}
		}
	}
	// "type" is read by nodeType; "default" takes any JSON value: both are
	// guidance for the agent and never inserted into arguments.
}

func (c *checker) typeKeyword(n *value, typ, k string, v *value, p loc, depth int) {
	switch k {
	case "enum":
		c.enum(typ, v, p)
	case "minLength", "maxLength", "minItems", "maxItems":
		c.count(k, v, p)
	case "minimum", "maximum":
		if v.kind != kindNumber {
			c.add(p, "%s must be a number; got %s", k, v.describe())
		}
	case "pattern":
		if v.kind != kindString {
			c.add(p, "pattern must be a string holding a regular expression; got %s", v.describe())
		} else if err := c.patternError(v.s); err != nil {
			c.add(p, "pattern %s is not a regular expression Pedelec can run; %s", quoteShort(v.s), err.Error())
		}
	case "uniqueItems":
		if v.kind != kindBool {
			c.add(p, "uniqueItems must be true or false; got %s", v.describe())
		}
	case "items":
		if v.kind == kindArray {
			c.add(p, `items must be one schema; a list of schemas (tuple form) is not supported, so use one schema, with "oneOf" if items differ`)
			return
		}
		c.node(v, p, depth+1, "")
	case "properties":
		if v.kind != kindObject {
			c.add(p, `properties must be an object mapping each property name to its schema; got %s`, v.describe())
			return
		}
		for _, m := range v.obj {
			c.node(m.val, p.child(m.key), depth+1, "")
		}
	case "required":
		c.required(n, v, p)
	}
}

func (c *checker) enum(typ string, v *value, p loc) {
	switch {
	case v.kind != kindArray:
		c.add(p, "enum must be an array of the allowed %s values; got %s", typ, v.describe())
		return
	case len(v.arr) == 0:
		c.add(p, "enum is empty, so no value could ever match; list the allowed %s values, or remove enum", typ)
		return
	}
	for i, e := range v.arr {
		if !isOfType(e, typ) {
			c.add(p.at(i), "enum values must be of the schema's type %s; got %s", typ, e.describe())
		}
	}
}

// isOfType is JSON Schema's type test, the one the subset's enum check and
// the validator share. An integer is a number without a fraction (1.0 and
// 1e2 count, as in JSON Schema and JavaScript). A type JSON Schema does not
// name matches nothing; "null" is JSON Schema's, though the subset refuses
// it as a type.
func isOfType(v *value, typ string) bool {
	switch typ {
	case "string":
		return v.kind == kindString
	case "number":
		return v.kind == kindNumber
	case "integer":
		f, ok := v.number() // false for anything but a number
		return ok && f == math.Trunc(f)
	case "boolean":
		return v.kind == kindBool
	case "array":
		return v.kind == kindArray
	case "object":
		return v.kind == kindObject
	case "null":
		return v.kind == kindNull
	}
	return false
}

// count checks a length or size bound: a non-negative integer.
func (c *checker) count(k string, v *value, p loc) {
	f, ok := v.number()
	switch {
	case v.kind != kindNumber:
		c.add(p, "%s must be a non-negative integer; got %s", k, v.describe())
	case !ok:
		// plain() has reported it.
	case f != math.Trunc(f) || f < 0:
		c.add(p, "%s must be a non-negative integer; got %s", k, v.s)
	}
}

// required checks the names in n's "required" against n's "properties".
func (c *checker) required(n, v *value, p loc) {
	if v.kind != kindArray {
		c.add(p, "required must be an array of property names; got %s", v.describe())
		return
	}
	props, _ := n.get("properties")
	for i, e := range v.arr {
		switch {
		case e.kind != kindString:
			c.add(p.at(i), "required must list property names as strings; got %s", e.describe())
		case props == nil || props.kind != kindObject:
			c.add(p.at(i), "required names %s, but the schema has no properties; declare it in \"properties\" or remove it from required", quoteShort(e.s))
		default:
			if _, ok := props.get(e.s); !ok {
				c.add(p.at(i), "required names %s, which is not in properties; declare it in \"properties\" or remove it from required", quoteShort(e.s))
			}
		}
	}
}

// pairs checks that lower bounds do not exceed upper bounds: such a schema
// accepts nothing, which is always a mistake.
func (c *checker) pairs(v *value, p loc, typ string) {
	// Each type has at most one pair (typeKeywords).
	var pair [2]string
	switch typ {
	case "string":
		pair = [2]string{"minLength", "maxLength"}
	case "number", "integer":
		pair = [2]string{"minimum", "maximum"}
	case "array":
		pair = [2]string{"minItems", "maxItems"}
	default:
		return
	}
	lo, okLo := v.get(pair[0])
	hi, okHi := v.get(pair[1])
	if !okLo || !okHi {
		return
	}
	l, ok1 := lo.number()
	h, ok2 := hi.number()
	if ok1 && ok2 && l > h {
		c.add(p.child(pair[0]), "%s (%s) is greater than %s (%s), so no value could match; lower %s or raise %s", pair[0], lo.s, pair[1], hi.s, pair[0], pair[1])
	}
}

func hasAny(v *value, keys ...string) bool {
	for _, k := range keys {
		if _, ok := v.get(k); ok {
			return true
		}
	}
	return false
}

func supportedHint(typ string, typeOK bool) string {
	if typeOK {
		return "a " + typ + " schema may use " + strings.Join(append(slices.Clone(anyNodeKeywords), typeKeywords[typ]...), ", ")
	}
	return "every schema may use " + strings.Join(anyNodeKeywords, ", ") + ", plus the keywords of its type"
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
