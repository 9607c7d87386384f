package schema

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The definition rules of an inputSchema (and of an outputSchema beside
// one): what the validator would not check is refused by name, with its
// path, before the validator compiles the schema; what it cannot compile
// is refused with the keyword and path it names.

// standardBase is the address a tool's schema is compiled at. It names no
// real document: a $ref that leads anywhere else than into the schema
// itself (or a part of it with its own $id) would need a fetch, and Core
// never fetches.
const standardBase = "https://pedelec.invalid/schema.json"

// standardSchema checks a schema in the standard dialects. field is
// "inputSchema" or "outputSchema"; why ends the root's type message.
func (c *checker) standardSchema(v *value, p loc, field, why string) {
	if v.kind != kindObject {
		c.add(p, `%s must be a JSON Schema object such as {"type": "object", "properties": {...}}; got %s`, field, v.describe())
		return
	}
	t, ok := v.get("type")
	switch {
	case !ok:
		c.add(p.child("type"), `the %s root must have "type": "object" (%s); add it`, field, why)
	case t.kind != kindString || t.s != "object":
		c.add(p.child("type"), `the %s root must have "type": "object" (%s); got %s`, field, why, t.describe())
	}
	d := draft2020()
	if s, ok := v.get("$schema"); ok {
		d2, known := dialectOf(s.s)
		if s.kind != kindString || !known {
			c.add(p.child("$schema"), `$schema must name a dialect Core validates: %s; got %s`, acceptedSchemas, s.describe())
			return
		}
		d = d2
	}
	before := len(c.problems)
	w := &standardWalk{c: c, d: d, ids: map[string]bool{standardBase: true}}
	w.node(v, p, standardBase, 0, true)
	w.node(v, p, standardBase, 0, false)
	if len(c.problems) > before {
		return
	}
	sch, err := compileStandard(v, d, nil)
	if err != nil {
		c.compileProblem(err, v, p, d)
		return
	}
	switch e := expansion(sch); {
	case e == endless:
		c.add(p, "a $ref leads back to itself without going into the value (through allOf, anyOf, oneOf, not, if/then/else or another $ref): the check would never end; make the recursion go through properties or items")
	case e > maxExpansion:
		c.add(p, "one value would be checked against more than %d subschemas at one place: a $ref used in several branches of allOf, anyOf or oneOf counts each time, and nested ones multiply; refer to each definition from one branch, or flatten the schema", maxExpansion)
	}
}

// standardWalk visits every subschema of one schema.
type standardWalk struct {
	c   *checker
	d   dialect
	ids map[string]bool // the documents the schema holds: its base and each $id
}

// node checks one subschema at p, whose base address is base. The first
// pass (collect) only gathers the $ids, so that the second can tell a
// $ref into the schema from one out of it.
func (w *standardWalk) node(v *value, p loc, base string, depth int, collect bool) {
	c := w.c
	switch {
	case v.kind == kindBool:
		return
	case v.kind != kindObject:
		if !collect {
			c.add(p, `a schema must be an object or true or false; got %s`, v.describe())
		}
		return
	case depth > maxSchemaDepth:
		if !collect {
			c.add(p, "schemas nested more than %d levels deep are not supported; flatten the arguments", maxSchemaDepth)
		}
		return
	}
	if id, ok := v.get("$id"); ok && id.kind == kindString && !(w.d.idIsAnchor && strings.HasPrefix(id.s, "#")) {
		if u, err := resolveRef(base, id.s); err == nil {
			base = u
			w.ids[u] = true
		}
	}
	_, hasRef := v.get("$ref")
	for _, m := range v.obj {
		kp := p.child(m.key)
		if !collect && !w.keyword(v, m, kp, base, hasRef) {
			continue
		}
		switch shapeOf(m.key) {
		case oneSubschema:
			if m.key == "items" && m.val.kind == kindArray && w.d.idIsAnchor {
				for i, e := range m.val.arr {
					w.node(e, kp.at(i), base, depth+1, collect)
				}
				continue
			}
			w.node(m.val, kp, base, depth+1, collect)
		case subschemaArray:
			for i, e := range m.val.arr { // nil unless an array
				w.node(e, kp.at(i), base, depth+1, collect)
			}
		case subschemaMap:
			for _, e := range m.val.obj { // nil unless an object
				if m.key == "dependencies" && e.val.kind == kindArray {
					continue // names, not a schema
				}
				w.node(e.val, kp.child(e.key), base, depth+1, collect)
			}
		}
	}
}

// keyword checks one member of a subschema; false when it was refused and
// its value is not to be walked.
func (w *standardWalk) keyword(n *value, m member, kp loc, base string, hasRef bool) bool {
	c, d := w.c, w.d
	switch {
	case !d.keyword(m.key):
		c.add(kp, `%s is not a keyword of JSON Schema %s, so nothing would check it; remove it (notes belong in "description" or "$comment")`, quoteShort(m.key), d.name)
		return false
	case hasRef && d.idIsAnchor && !beside07Ref(m.key):
		c.add(kp, `draft-07 ignores every keyword beside "$ref", so %s would not be checked; put the $ref and %s in an "allOf", or use draft 2020-12 (leave "$schema" out)`, m.key, m.key)
		return false
	}
	switch m.key {
	case "$ref", "$dynamicRef":
		if m.val.kind != kindString {
			return true // the meta-schema check says so
		}
		u, err := resolveRef(base, m.val.s)
		if err != nil {
			c.add(kp, "%s %s is not a URI reference (%s); refer into this schema, such as \"#/$defs/Name\"", m.key, quoteShort(m.val.s), err.Error())
			return false
		}
		if !w.ids[u] {
			c.add(kp, `%s %s refers outside this schema, and Core never fetches schemas; copy the definition into "$defs" and refer to it as "#/$defs/Name"`, m.key, quoteShort(m.val.s))
			return false
		}
	// A format or encoding Core does not know is checked by a pattern
	// beside it, or not at all: Zod writes a pattern with each of its own
	// formats (cuid, nanoid, base64url...), which is the check Zod runs.
	case "format":
		if _, checked := n.get("pattern"); m.val.kind == kindString && !knownFormat(m.val.s) && !checked {
			c.add(kp, "format %s is not one Core checks, so it would be ignored; use one of %s, or add a \"pattern\" that checks it", quoteShort(m.val.s), knownFormats)
			return false
		}
	case "contentEncoding":
		if _, checked := n.get("pattern"); m.val.kind == kindString && !knownEncoding(m.val.s) && !checked {
			c.add(kp, `contentEncoding %s is not one Core decodes, so it would be ignored; use "base64", add a "pattern" that checks it, or remove it`, quoteShort(m.val.s))
			return false
		}
	case "contentMediaType":
		if m.val.kind == kindString && !knownMediaType(m.val.s) {
			c.add(kp, `contentMediaType %s is not one Core checks, so it would be ignored; use "application/json", or remove it`, quoteShort(m.val.s))
			return false
		}
	}
	return true
}

// resolveRef resolves ref against base and drops the fragment: the
// document ref leads to.
func resolveRef(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", errors.Unwrap(err)
	}
	u := b.ResolveReference(r)
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

// compileProblem words what the validator could not compile, at the
// keyword's path.
func (c *checker) compileProblem(err error, root *value, p loc, d dialect) {
	at := p.path()
	var meta *jsonschema.SchemaValidationError
	var verr *jsonschema.ValidationError
	var re *jsonschema.InvalidRegexError
	var load *jsonschema.LoadURLError
	switch {
	case errors.As(err, &meta) && errors.As(meta.Err, &verr):
		for _, leaf := range metaLeaves(verr, nil) {
			where := pointerPath(root, at, leaf.InstanceLocation).String()
			if f, ok := leaf.ErrorKind.(*kind.Format); ok && f.Want == "regex" {
				c.problems = append(c.problems, Problem{Path: where, Message: "pattern " + quoteShort(fmt.Sprint(f.Got)) + " is not a regular expression Core can run; " + localized(f.Err)})
				continue
			}
			c.problems = append(c.problems, Problem{Path: where,
				Message: "this is not valid JSON Schema (" + d.name + "): " + leaf.ErrorKind.LocalizedString(printer()) + "; fix the keyword's value"})
		}
	case errors.As(err, &re):
		c.problems = append(c.problems, Problem{Path: pointerPath(root, at, fragmentTokens(re.URL)).String(),
			Message: "pattern " + quoteShort(re.Regex) + " is not a regular expression Core can run; " + re.Err.Error()})
	case errors.As(err, &load):
		c.problems = append(c.problems, Problem{Path: at.String(),
			Message: "the schema refers to " + quoteShort(load.URL) + ", outside itself, and Core never fetches schemas; copy the definition into \"$defs\" and refer to it as \"#/$defs/Name\""})
	default:
		msg := strings.ReplaceAll(err.Error(), standardBase, "")
		where := at.String()
		// A $ref to a place that is not there names the place; report it
		// at the $ref that names it.
		if ref := refIn(msg); ref != "" {
			if p, ok := findRef(root, at, ref); ok {
				where = p.String()
			}
		}
		c.problems = append(c.problems, Problem{Path: where, Message: "the schema cannot be compiled (" + msg + "); fix it"})
	}
}

// metaLeaves are the innermost causes of a meta-schema failure: the
// keywords that are wrong.
func metaLeaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = metaLeaves(c, out)
	}
	return out
}

// pointerPath extends at by JSON Pointer tokens into root, written as the
// manifest's paths are: an array's element by index, a member by key.
func pointerPath(root *value, at path, tokens []string) path {
	v := root
	for _, t := range tokens {
		if v != nil && v.kind == kindArray {
			if i, err := strconv.Atoi(t); err == nil && i >= 0 && i < len(v.arr) {
				at, v = at.index(i), v.arr[i]
				continue
			}
		}
		at = at.key(t)
		v, _ = v.get(t)
	}
	return at
}

// fragmentTokens are the JSON Pointer tokens of a URL's fragment.
func fragmentTokens(u string) []string {
	_, frag, ok := strings.Cut(u, "#")
	if !ok || frag == "" || frag == "/" {
		return nil
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	tokens := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens
}

// refIn is the first quoted "#..." reference in a compiler message.
func refIn(msg string) string {
	_, rest, ok := strings.Cut(msg, `"#`)
	if !ok {
		return ""
	}
	ref, _, ok := strings.Cut(rest, `"`)
	if !ok {
		return ""
	}
	return "#" + ref
}

// findRef finds the first $ref (or $dynamicRef) whose value is ref.
func findRef(v *value, at path, ref string) (path, bool) {
	switch v.kind {
	case kindObject:
		for _, m := range v.obj {
			if (m.key == "$ref" || m.key == "$dynamicRef") && m.val.kind == kindString && m.val.s == ref {
				return at.key(m.key), true
			}
			if p, ok := findRef(m.val, at.key(m.key), ref); ok {
				return p, true
			}
		}
	case kindArray:
		for i, e := range v.arr {
			if p, ok := findRef(e, at.index(i), ref); ok {
				return p, true
			}
		}
	}
	return "", false
}
