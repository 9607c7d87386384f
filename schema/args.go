package schema

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
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
// never changed: defaults are not inserted. The page is sent the very
// bytes checked here, so they must be UTF-8: the parser would read a bad
// byte in a string as U+FFFD, the page's socket would not take it at all.
func (c *CompiledTool) ValidateArgs(args json.RawMessage) []Violation {
	if len(c.def.InputSchema) > 0 {
		return c.validateStandardArgs(args)
	}
	tree, err := c.schemaTree()
	if err != nil {
		return []Violation{{Path: RootPath, Expected: "arguments for a tool whose schema Core can read", Got: "a tool whose argsSchema is not JSON",
			Message: "the tool's argsSchema cannot be read (" + err.Error() + "); the page must declare a valid schema"}}
	}
	inst, out := readArgs(args, tree)
	if inst == nil {
		return out
	}
	validator{tool: c, limit: MaxViolations}.check(tree, inst, "", &out)
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// readArgs parses a call's arguments for a check against tree. A nil value
// comes with the violations that end the check: text that is not UTF-8 or
// not JSON, or numbers beyond a double.
func readArgs(args json.RawMessage, tree *value) (*value, []Violation) {
	if !utf8.Valid(args) {
		return nil, []Violation{{
			Path: RootPath, Expected: "UTF-8 text", Got: "bytes that are not UTF-8",
			Message: "the arguments must be UTF-8 text, as JSON is; got bytes that are not UTF-8 (write non-ASCII characters as UTF-8 or as \\u escapes)",
		}}
	}
	inst, err := parseJSON(args)
	if err != nil {
		got := "text that is not JSON (" + err.Error() + ")"
		if len(strings.TrimSpace(string(args))) == 0 {
			got = "nothing"
		}
		return nil, []Violation{{
			Path: RootPath, Expected: "a JSON object", Got: got,
			Message: "the arguments must be one JSON object, such as " + example(tree) + "; got " + got,
		}}
	}
	var out []Violation
	repeatedKeys(inst, "", &out)
	outOfRange(inst, "", &out)
	if len(out) > 0 {
		return nil, out // the checks would see these numbers as infinity
	}
	return inst, nil
}

// example is a tiny object an agent can pattern its call on.
func example(tree *value) string {
	props, _ := tree.get("properties")
	if props == nil || len(props.obj) == 0 {
		return "{}"
	}
	return `{"` + props.obj[0].key + `": ...}`
}

func outOfRange(v *value, p path, out *[]Violation) {
	if len(*out) >= MaxViolations {
		return
	}
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

// repeatedKeys refuses an object that names a key twice: JSON leaves it
// to the reader which value counts, and readers differ (a window showing
// the first while the page's JSON.parse hands its handler the last), so
// what the user is shown and what runs could be two different calls.
func repeatedKeys(v *value, p path, out *[]Violation) {
	if len(*out) >= MaxViolations {
		return
	}
	switch v.kind {
	case kindArray:
		for i, e := range v.arr {
			repeatedKeys(e, p.index(i), out)
		}
	case kindObject:
		for _, k := range v.dups {
			*out = append(*out, Violation{Path: p.key(k).String(), Expected: "each key once", Got: "the key " + quoteShort(k) + " more than once",
				Message: "the key " + quoteShort(k) + " appears more than once; send each key once, with the one value meant"})
		}
		for _, m := range v.obj {
			repeatedKeys(m.val, p.key(m.key), out)
		}
	}
}
