package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Violation is one way an agent's arguments miss a tool's schema. Path
// names the value (delta, card.labels[2]; RootPath for the arguments
// object itself), Expected and Got are short phrases, and Message is the
// sentence to act on, without the path. Together they let a model fix its
// call in one retry.
type Violation struct {
	Path     string `json:"path"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
	Message  string `json:"message"`
}

// ValidateArgs checks one call's arguments and returns every violation,
// sorted by path; none means the call may go to the page. Arguments are
// never changed: defaults are not inserted.
func (c *CompiledTool) ValidateArgs(args json.RawMessage) []Violation {
	inst, err := parseJSON(args)
	if err != nil {
		got := "text that is not JSON (" + err.Error() + ")"
		if len(strings.TrimSpace(string(args))) == 0 {
			got = "nothing"
		}
		return []Violation{{
			Path: RootPath, Expected: "a JSON object", Got: got,
			Message: "the arguments must be one JSON object, such as " + c.example() + "; got " + got,
		}}
	}
	var out []Violation
	outOfRange(inst, "", &out)
	if len(out) > 0 {
		return out // the validator would see these numbers as infinity
	}
	err = c.schema.Validate(inst.toAny())
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		c.translate(ve, inst, &out)
	} else if err != nil {
		out = append(out, Violation{Path: RootPath, Expected: describe(c.tree, 0), Got: show(inst), Message: err.Error()})
	}
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// example is a tiny object an agent can pattern its call on.
func (c *CompiledTool) example() string {
	props, _ := c.tree.get("properties")
	if props == nil || len(props.obj) == 0 {
		return "{}"
	}
	return `{"` + props.obj[0].key + `": ...}`
}

func outOfRange(v *value, p path, out *[]Violation) {
	switch v.kind {
	case kindNumber:
		if _, ok := v.number(); !ok {
			*out = append(*out, Violation{Path: p.String(), Expected: "a number that fits a double", Got: v.s,
				Message: "the number " + v.s + " is too large for a JSON number; use a smaller value"})
		}
	case kindArray:
		for i, e := range v.arr {
			outOfRange(e, p.index(i), out)
		}
	case kindObject:
		for _, m := range v.obj {
			outOfRange(m.val, p.key(m.key), out)
		}
	}
}

// translate turns the library's error tree into violations. Group and
// Schema errors only carry causes; every other kind is one violation,
// worded from the schema node it came from.
func (c *CompiledTool) translate(e *jsonschema.ValidationError, inst *value, out *[]Violation) {
	node := c.schemaNode(e.SchemaURL)
	got, p := locate(inst, e.InstanceLocation)
	add := func(expected, gotText, message string) {
		*out = append(*out, Violation{Path: p.String(), Expected: expected, Got: gotText, Message: message})
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group:
		for _, cause := range e.Causes {
			c.translate(cause, inst, out)
		}
	case *kind.Type:
		exp := describe(node, 0)
		msg := "must be " + exp + "; got " + typed(got)
		if len(e.InstanceLocation) == 0 && got != nil && got.kind == kindString {
			if inner, err := parseJSON([]byte(got.s)); err == nil && inner.kind == kindObject {
				msg += "; that string holds JSON, so pass the object itself, not a quoted string"
			}
		}
		add(exp, typed(got), msg)
	case *kind.Enum:
		exp := "one of " + listValues(k.Want)
		add(exp, show(got), "must be "+exp+"; got "+show(got))
	case *kind.Minimum:
		exp := "at least " + ratString(k.Want.FloatString(10))
		add(exp, show(got), "must be "+exp+"; got "+show(got))
	case *kind.Maximum:
		exp := "at most " + ratString(k.Want.FloatString(10))
		add(exp, show(got), "must be "+exp+"; got "+show(got))
	case *kind.MinLength:
		exp := "at least " + Plural(k.Want, "character")
		g := show(got) + " (" + Plural(k.Got, "character") + ")"
		add(exp, g, "must be "+exp+" long; got "+g)
	case *kind.MaxLength:
		exp := "at most " + Plural(k.Want, "character")
		g := show(got) + " (" + Plural(k.Got, "character") + ")"
		add(exp, g, "must be "+exp+" long; got "+g)
	case *kind.Pattern:
		exp := "a string matching the pattern " + k.Want
		add(exp, show(got), "must match the pattern "+k.Want+"; got "+show(got))
	case *kind.MinItems:
		exp := "at least " + Plural(k.Want, "item")
		add(exp, Plural(k.Got, "item"), "must have "+exp+"; got "+Plural(k.Got, "item"))
	case *kind.MaxItems:
		exp := "at most " + Plural(k.Want, "item")
		add(exp, Plural(k.Got, "item"), "must have "+exp+"; got "+Plural(k.Got, "item"))
	case *kind.UniqueItems:
		i, j := k.Duplicates[0], k.Duplicates[1]
		g := fmt.Sprintf("items %d and %d are equal", i, j)
		if got != nil && got.kind == kindArray && i < len(got.arr) {
			g += " (" + show(got.arr[i]) + ")"
		}
		add("items that are all different", g, "must not repeat an item; "+g+", so remove the duplicate")
	case *kind.Required:
		props, _ := node.get("properties")
		for _, name := range k.Missing {
			prop, _ := props.get(name)
			exp := describe(prop, 0)
			*out = append(*out, Violation{Path: p.key(name).String(), Expected: exp, Got: "nothing (the property is missing)",
				Message: "is required; add " + quoteJSON(name) + " with " + exp})
		}
	case *kind.OneOf:
		c.oneOf(k, e, node, inst, got, p, out)
	default:
		// Unreachable with the subset's keywords; worded from the keyword so
		// a new library kind still yields a usable violation.
		exp := describe(node, 0)
		add(exp, show(got), "does not satisfy "+strings.Join(e.ErrorKind.KeywordPath(), "/")+"; must be "+exp)
	}
}

// oneOf words a oneOf failure as one violation: the forms allowed, and why
// the value fits none of them (or which several it fits).
func (c *CompiledTool) oneOf(k *kind.OneOf, e *jsonschema.ValidationError, node, inst, got *value, p path, out *[]Violation) {
	options, _ := node.get("oneOf")
	var forms []string
	if options != nil {
		for i, o := range options.arr {
			forms = append(forms, fmt.Sprintf("(%d) %s", i+1, describe(o, 1)))
		}
	}
	exp := "exactly one of: " + strings.Join(forms, "; ")
	v := Violation{Path: p.String(), Expected: exp, Got: typed(got)}
	if len(k.Subschemas) > 0 {
		var idx []string
		for _, s := range k.Subschemas {
			idx = append(idx, fmt.Sprint(s+1))
		}
		v.Message = "must match exactly one allowed form but matches forms " + strings.Join(idx, " and ") + " of: " + strings.Join(forms, "; ") + "; change it so that only one fits"
	} else {
		var reasons []string
		for i, cause := range e.Causes {
			var sub []Violation
			c.translate(cause, inst, &sub)
			for _, s := range sub {
				at := ""
				if s.Path != p.String() {
					at = s.Path + " "
				}
				reasons = append(reasons, fmt.Sprintf("form %d: %s%s", i+1, at, s.Message))
				break // the first reason per form is enough to steer a retry
			}
		}
		v.Message = "must match exactly one of: " + strings.Join(forms, "; ") + "; it matches none (" + strings.Join(reasons, "; ") + ")"
	}
	*out = append(*out, v)
}

// schemaNode finds the argsSchema node a library error points at; its
// SchemaURL fragment is a JSON pointer, percent-encoded.
func (c *CompiledTool) schemaNode(u string) *value {
	_, frag, _ := strings.Cut(u, "#")
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	n := c.tree
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" || n == nil {
			continue
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch n.kind {
		case kindObject:
			n, _ = n.get(tok)
		case kindArray:
			i := 0
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(n.arr) {
				return nil
			}
			n = n.arr[i]
		default:
			return nil
		}
	}
	return n
}

// locate finds the instance value at a library location and its path.
func locate(v *value, loc []string) (*value, path) {
	p := path("")
	for _, tok := range loc {
		switch {
		case v == nil:
			p = p.key(tok)
		case v.kind == kindArray:
			i := -1
			_, _ = fmt.Sscan(tok, &i)
			p = p.index(i)
			if i >= 0 && i < len(v.arr) {
				v = v.arr[i]
			} else {
				v = nil
			}
		default:
			p = p.key(tok)
			v, _ = v.get(tok)
		}
	}
	return v, p
}

// show prints a value as JSON, shortened for a message.
func show(v *value) string {
	if v == nil {
		return "nothing"
	}
	if v.kind == kindString {
		return quoteShort(v.s)
	}
	s := string(compact(v))
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60]) + "…"
	}
	return s
}

// typed prints a value with its JSON type, for type mismatches.
func typed(v *value) string {
	if v == nil {
		return "nothing"
	}
	if v.kind == kindNumber {
		if f, ok := v.number(); ok && f != math.Trunc(f) {
			return show(v) + " (a number with a fraction)"
		}
	}
	if v.kind == kindNull {
		return "null"
	}
	return show(v) + " (" + article(v.kind.String()) + ")"
}

func article(s string) string {
	if strings.ContainsAny(s[:1], "aeiou") {
		return "an " + s
	}
	return "a " + s
}

// ratString trims the zeros FloatString pads with: 100.0000000000 → 100.
func ratString(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func listValues(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}
