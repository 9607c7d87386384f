package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"
)

// The validator's verdict as Violations: for every keyword, the path of
// the value, what the schema expects there and what came, in the words the
// subset's checks use, so an agent reads one kind of error whichever
// dialect a tool's schema is in.

// verdict turns one validation error tree into violations.
type verdict struct {
	inst   *value // the arguments (or result) checked
	schema *value // the tool's schema, to name what a node allows
	out    []Violation
}

func (vd *verdict) add(p path, expected, got, message string) {
	if len(vd.out) < MaxViolations {
		vd.out = append(vd.out, Violation{Path: p.String(), Expected: expected, Got: got, Message: message})
	}
}

// node is the schema object the error was found at, when it lies in the
// tool's schema document.
func (vd *verdict) node(e *jsonschema.ValidationError) *value {
	rest, ok := strings.CutPrefix(e.SchemaURL, standardBase)
	if !ok || rest != "" && rest[0] != '#' {
		return nil
	}
	v := vd.schema
	for _, t := range fragmentTokens(rest) {
		if v != nil && v.kind == kindArray {
			if i, err := strconv.Atoi(t); err == nil && i >= 0 && i < len(v.arr) {
				v = v.arr[i]
				continue
			}
		}
		v, _ = v.get(t)
	}
	return v
}

// walk reports e and its causes.
func (vd *verdict) walk(e *jsonschema.ValidationError) {
	if len(vd.out) >= MaxViolations {
		return
	}
	p := instancePath(e.InstanceLocation)
	inst := valueAt(vd.inst, e.InstanceLocation)
	must := func(expected, got string) { vd.add(p, expected, got, "must be "+expected+"; got "+got) }
	switch k := e.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.AllOf, *kind.Reference:
		for _, c := range e.Causes {
			vd.walk(c)
		}
	case *kind.AnyOf:
		vd.alternatives(e, p, inst, "at least one", nil)
	case *kind.OneOf:
		vd.alternatives(e, p, inst, "exactly one", k.Subschemas)
	case *kind.Type:
		exp := typeNames(k.Want)
		msg := "must be " + exp + "; got " + typed(inst)
		if p == "" && inst != nil && inst.kind == kindString {
			if inner, err := parseText(inst.s); err == nil && inner.kind == kindObject {
				msg += "; that string holds JSON, so pass the object itself, not a quoted string"
			}
		}
		vd.add(p, exp, typed(inst), msg)
	case *kind.Enum:
		must("one of "+anyList(k.Want), show(inst))
	case *kind.Const:
		must("exactly "+anyJSON(k.Want), show(inst))
	case *kind.Format:
		got := show(inst)
		if k.Err != nil {
			got += " (" + localized(k.Err) + ")"
		}
		must("a string in the format "+k.Want, got)
	case *kind.Required:
		n := vd.node(e)
		props, _ := n.get("properties")
		for _, name := range k.Missing {
			prop, _ := props.get(name)
			exp := vd.describe(prop)
			vd.add(p.key(name), exp, "nothing (the property is missing)", "is required; add "+quoteJSON(name)+" with "+exp)
		}
	case *kind.DependentRequired:
		vd.dependent(p, k.Prop, k.Missing)
	case *kind.Dependency:
		vd.dependent(p, k.Prop, k.Missing)
	case *kind.AdditionalProperties:
		allowed := declared(vd.node(e))
		for _, name := range k.Properties {
			v, _ := inst.get(name)
			vd.add(p.key(name), "no property "+quoteJSON(name)+" ("+allowed+")", typed(v),
				"is not allowed: the schema takes no properties beyond those it declares ("+allowed+"); got "+typed(v)+", so remove it")
		}
	case *kind.PropertyNames:
		reason := "it breaks propertyNames"
		if len(e.Causes) > 0 {
			reason = e.Causes[0].ErrorKind.LocalizedString(printer())
		}
		vd.add(p.key(k.Property), "a property name that propertyNames allows", quoteJSON(k.Property),
			"has a name propertyNames does not allow ("+reason+"); rename or remove it")
	case *kind.MinProperties:
		must("an object with at least "+Plural(k.Want, "property"), Plural(k.Got, "property"))
	case *kind.MaxProperties:
		must("an object with at most "+Plural(k.Want, "property"), Plural(k.Got, "property"))
	case *kind.MinItems:
		exp := "at least " + Plural(k.Want, "item")
		vd.add(p, exp, Plural(k.Got, "item"), "must have "+exp+"; got "+Plural(k.Got, "item"))
	case *kind.MaxItems:
		exp := "at most " + Plural(k.Want, "item")
		vd.add(p, exp, Plural(k.Got, "item"), "must have "+exp+"; got "+Plural(k.Got, "item"))
	case *kind.AdditionalItems:
		vd.add(p, "at most "+Plural(k.Count, "item"), Plural(len(inst.arr), "item"), "has items beyond the "+Plural(k.Count, "item")+" the schema declares; remove them")
	case *kind.UniqueItems:
		i, j := k.Duplicates[0], k.Duplicates[1]
		g := fmt.Sprintf("items %d and %d are equal", i, j)
		if inst != nil && i < len(inst.arr) {
			g += " (" + show(inst.arr[i]) + ")"
		}
		vd.add(p, "items that are all different", g, "must not repeat an item; "+g+", so remove the duplicate")
	case *kind.Contains:
		vd.add(p, "an array with an item that matches contains", "no such item", "must have at least one item that matches the schema of contains; got none")
	case *kind.MinContains:
		vd.add(p, fmt.Sprintf("an array with at least %s matching contains", Plural(k.Want, "item")), Plural(len(k.Got), "matching item"),
			fmt.Sprintf("must have at least %s that match contains; got %s", Plural(k.Want, "item"), Plural(len(k.Got), "item")))
	case *kind.MaxContains:
		vd.add(p, fmt.Sprintf("an array with at most %s matching contains", Plural(k.Want, "item")), Plural(len(k.Got), "matching item"),
			fmt.Sprintf("must have at most %s that match contains; got %s", Plural(k.Want, "item"), Plural(len(k.Got), "item")))
	case *kind.MinLength:
		exp := "at least " + Plural(k.Want, "character")
		g := show(inst) + " (" + Plural(k.Got, "character") + ")"
		vd.add(p, exp, g, "must be "+exp+" long; got "+g)
	case *kind.MaxLength:
		exp := "at most " + Plural(k.Want, "character")
		g := show(inst) + " (" + Plural(k.Got, "character") + ")"
		vd.add(p, exp, g, "must be "+exp+" long; got "+g)
	case *kind.Pattern:
		exp := "a string matching the pattern " + k.Want
		vd.add(p, exp, show(inst), "must match the pattern "+k.Want+"; got "+show(inst))
	case *kind.Minimum:
		must("at least "+ratText(k.Want), show(inst))
	case *kind.Maximum:
		must("at most "+ratText(k.Want), show(inst))
	case *kind.ExclusiveMinimum:
		must("greater than "+ratText(k.Want), show(inst))
	case *kind.ExclusiveMaximum:
		must("less than "+ratText(k.Want), show(inst))
	case *kind.MultipleOf:
		must("a multiple of "+ratText(k.Want), show(inst))
	case *kind.Not:
		vd.add(p, "a value that does not match the schema under not", show(inst), "must not match the schema under \"not\"; got "+show(inst))
	case *kind.FalseSchema:
		vd.add(p, "no value here (the schema is false)", typed(inst), "is not allowed here (the schema at this place is false); remove it")
	case *kind.ContentEncoding:
		must("a string in the encoding "+k.Want, show(inst)+" ("+localized(k.Err)+")")
	case *kind.ContentMediaType:
		must("a string holding "+k.Want, show(inst)+" ("+localized(k.Err)+")")
	case *kind.ContentSchema:
		reason := ""
		if len(e.Causes) > 0 {
			reason = ": " + e.Causes[0].ErrorKind.LocalizedString(printer())
		}
		vd.add(p, "content that matches contentSchema", show(inst), "holds content that breaks contentSchema"+reason)
	default:
		msg := e.ErrorKind.LocalizedString(printer())
		vd.add(p, "a value the schema allows", show(inst), "is not allowed ("+msg+")")
	}
}

// alternatives words an anyOf or oneOf failure as one violation: which
// forms the value matched (several, for oneOf), or each form's first reason.
func (vd *verdict) alternatives(e *jsonschema.ValidationError, p path, inst *value, how string, matched []int) {
	keyword := map[string]string{"at least one": "anyOf", "exactly one": "oneOf"}[how]
	if len(matched) > 1 {
		forms := make([]string, len(matched))
		for i, m := range matched {
			forms[i] = strconv.Itoa(m + 1)
		}
		vd.add(p, how+" of the "+keyword+" forms", typed(inst),
			"must match exactly one of the oneOf forms but matches forms "+strings.Join(forms, " and ")+"; change it so that only one fits")
		return
	}
	var expected, reasons []string
	for i, c := range e.Causes {
		if i == maxOneOfForms {
			expected = append(expected, fmt.Sprintf("and %d more", len(e.Causes)-i))
			reasons = append(reasons, fmt.Sprintf("and %d more forms", len(e.Causes)-i))
			break
		}
		sub := &verdict{inst: vd.inst, schema: vd.schema}
		sub.walk(c)
		if len(sub.out) == 0 {
			continue
		}
		first := sub.out[0]
		at := ""
		if first.Path != p.String() {
			at = first.Path + " "
		}
		expected = append(expected, shorten(fmt.Sprintf("(%d) %s%s", i+1, at, first.Expected)))
		reasons = append(reasons, shorten(fmt.Sprintf("form %d: %s%s", i+1, at, first.Message)))
	}
	exp := how + " of: " + strings.Join(expected, "; ")
	vd.add(p, exp, typed(inst), "must match "+how+" of the "+keyword+" forms; it matches none ("+strings.Join(reasons, "; ")+")")
}

// describe words what a schema node accepts, as the subset's describe
// does, following the schema's own $refs and naming formats, constants and
// alternatives, which the subset has not.
func (vd *verdict) describe(n *value) string {
	for range 8 {
		r, ok := n.get("$ref")
		if !ok || r.kind != kindString || !strings.HasPrefix(r.s, "#") {
			break
		}
		n = valueAt(vd.schema, fragmentTokens(r.s))
	}
	if f, ok := n.get("format"); ok && f.kind == kindString {
		return "a string in the format " + f.s
	}
	if c, ok := n.get("const"); ok {
		return "exactly " + show(c)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if _, ok := n.get(k); ok {
			return "a value matching its " + k + " forms"
		}
	}
	if d := describe(n, 0); d != "any JSON value" {
		return d
	}
	return "a value"
}

// dependent reports properties a present property requires.
func (vd *verdict) dependent(p path, prop string, missing []string) {
	for _, name := range missing {
		vd.add(p.key(name), "a value (required when "+quoteJSON(prop)+" is present)", "nothing (the property is missing)",
			"is required because "+quoteJSON(prop)+" is present; add "+quoteJSON(name)+", or remove "+quoteJSON(prop))
	}
}

// declared lists the properties a node declares, for additionalProperties.
func declared(n *value) string {
	props, _ := n.get("properties")
	if props == nil || props.kind != kindObject || len(props.obj) == 0 {
		return "it declares none"
	}
	names := make([]string, 0, len(props.obj))
	for i, m := range props.obj {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(props.obj)-i))
			break
		}
		names = append(names, quoteJSON(m.key))
	}
	return "allowed: " + strings.Join(names, ", ")
}

// instancePath is a JSON Pointer's tokens as a path; a token of digits is
// an array index (an object key of digits reads the same way, as
// JavaScript's o[0] and o["0"] do).
func instancePath(tokens []string) path {
	var p path
	for _, t := range tokens {
		if i, err := strconv.Atoi(t); err == nil && i >= 0 && strconv.Itoa(i) == t {
			p = p.index(i)
		} else {
			p = p.key(t)
		}
	}
	return p
}

// valueAt is the value at a JSON Pointer's tokens, or nil.
func valueAt(v *value, tokens []string) *value {
	for _, t := range tokens {
		switch {
		case v == nil:
			return nil
		case v.kind == kindArray:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v.arr) {
				return nil
			}
			v = v.arr[i]
		default:
			v, _ = v.get(t)
		}
	}
	return v
}

// typeNames words a list of JSON Schema types: "a string", "a string or null".
func typeNames(types []string) string {
	parts := make([]string, len(types))
	for i, t := range types {
		if t == "null" {
			parts[i] = "null"
		} else {
			parts[i] = article(t)
		}
	}
	return orList(parts)
}

func anyJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func anyList(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = anyJSON(v)
	}
	return strings.Join(parts, ", ")
}

// ratText prints a bound as its shortest decimal: the schema's numbers are
// doubles (compileStandard), so the double's shortest form is what the
// page wrote.
func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.RatString()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// localized is an error's text, in the library's words when it has them.
func localized(err error) string {
	if err == nil {
		return "invalid"
	}
	if l, ok := err.(interface {
		LocalizedError(*message.Printer) string
	}); ok {
		return l.LocalizedError(printer())
	}
	return err.Error()
}
