package schema

import (
	"strings"
)

// describe words what a schema node accepts, for an agent reading a
// violation: "an integer from -100 to 100", "a string of 1 to 120
// characters", "an array of strings (at most 10 items, all different)".
// depth limits how far nested objects are spelled out.
func describe(n *value, depth int) string {
	if n == nil || n.kind != kindObject {
		return "any JSON value"
	}
	if e, ok := n.get("enum"); ok && e.kind == kindArray {
		vals := make([]string, len(e.arr))
		for i, v := range e.arr {
			vals[i] = show(v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	t, _ := n.get("type")
	typ := ""
	if t != nil && t.kind == kindString {
		typ = t.s
	}
	switch typ {
	case "string":
		s := "a string" + bounds(n, "minLength", "maxLength", "character", " of ")
		if p, ok := n.get("pattern"); ok && p.kind == kindString {
			s += " matching the pattern " + p.s
		}
		return s
	case "integer", "number":
		return article(typ) + numberBounds(n)
	case "boolean":
		return "true or false"
	case "array":
		s := "an array"
		if items, ok := n.get("items"); ok && depth < 2 {
			s += " of " + plainPlural(describe(items, depth+1))
		}
		var extra []string
		if b := bounds(n, "minItems", "maxItems", "item", ""); b != "" {
			extra = append(extra, strings.TrimSpace(b))
		}
		if u, ok := n.get("uniqueItems"); ok && u.kind == kindBool && u.b {
			extra = append(extra, "all different")
		}
		if len(extra) > 0 {
			s += " (" + strings.Join(extra, ", ") + ")"
		}
		return s
	case "object":
		props, _ := n.get("properties")
		if props == nil || props.kind != kindObject || len(props.obj) == 0 {
			return "an object"
		}
		if depth >= 2 {
			return "an object"
		}
		req := map[string]bool{}
		if r, ok := n.get("required"); ok && r.kind == kindArray {
			for _, e := range r.arr {
				req[e.s] = e.kind == kindString
			}
		}
		parts := make([]string, 0, len(props.obj))
		for _, m := range props.obj {
			part := quoteJSON(m.key) + ": " + describe(m.val, depth+1)
			if req[m.key] {
				part += " (required)"
			}
			parts = append(parts, part)
		}
		return "an object {" + strings.Join(parts, ", ") + "}"
	}
	if o, ok := n.get("oneOf"); ok && o.kind == kindArray {
		forms := make([]string, len(o.arr))
		for i, e := range o.arr {
			forms[i] = describe(e, depth+1)
		}
		return "exactly one of: " + strings.Join(forms, " | ")
	}
	return "any JSON value"
}

// bounds words a min/max keyword pair: " of 1 to 120 characters".
func bounds(n *value, minKey, maxKey, unit, prefix string) string {
	lo, okLo := n.get(minKey)
	hi, okHi := n.get(maxKey)
	okLo = okLo && lo.kind == kindNumber
	okHi = okHi && hi.kind == kindNumber
	switch {
	case okLo && okHi:
		return prefix + lo.s + " to " + hi.s + " " + unit + "s"
	case okLo:
		return prefix + "at least " + unitCount(lo.s, unit)
	case okHi:
		return prefix + "at most " + unitCount(hi.s, unit)
	}
	return ""
}

func unitCount(n, unit string) string {
	if n == "1" {
		return n + " " + unit
	}
	return n + " " + unit + "s"
}

func numberBounds(n *value) string {
	lo, okLo := n.get("minimum")
	hi, okHi := n.get("maximum")
	okLo = okLo && lo.kind == kindNumber
	okHi = okHi && hi.kind == kindNumber
	switch {
	case okLo && okHi:
		return " from " + lo.s + " to " + hi.s
	case okLo:
		return " of at least " + lo.s
	case okHi:
		return " of at most " + hi.s
	}
	return ""
}

// plainPlural turns "a string of ..." into "strings of ..." for "an array of".
func plainPlural(s string) string {
	for _, a := range []string{"a ", "an "} {
		if rest, ok := strings.CutPrefix(s, a); ok {
			head, tail, _ := strings.Cut(rest, " ")
			if tail != "" {
				return head + "s " + tail
			}
			return head + "s"
		}
	}
	return s
}
