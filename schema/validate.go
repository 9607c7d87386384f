package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The argument validator for Pedelec's schema subset. It used to be a
// general JSON Schema library, whose package init compiled every draft's
// meta-schema (10 ms and 1.7 MB in every process, `pedelec tool-call`
// included, which validates nothing) and whose compiled schemas cost
// kilobytes per declared tool. The subset has eleven keywords; checking
// them directly costs nothing at start-up and nothing per tool until the
// tool is called. It keeps the library's evaluation order (type, enum,
// then required/properties, minItems/maxItems/uniqueItems/items,
// minLength/maxLength/pattern, minimum/maximum, then oneOf), so messages
// and their order are unchanged (the golden tests hold them).

// validator checks arguments against one tool's parsed schema.
type validator struct {
	tool *CompiledTool
	// limit stops the check once out holds that many violations (0: no
	// limit). A value may be as large as a frame, and one violation per
	// array item made hundreds of megabytes of messages (see MaxViolations).
	limit int
}

// MaxViolations is the most violations one check of arguments or of a
// result reports; a value with more says so in its message ("or more").
const MaxViolations = 100

// maxOneOfForms bounds the forms, and the reasons, one oneOf violation
// lists, and maxReasonRunes each reason's length: a oneOf of 200 forms
// made each item's violation 24 KB, and a oneOf nested in one multiplied it.
const (
	maxOneOfForms  = 8
	maxReasonRunes = 300
)

// check appends every violation of inst against schema node n at p.
func (vd validator) check(n, inst *value, p path, out *[]Violation) {
	if n == nil || n.kind != kindObject || vd.limit > 0 && len(*out) >= vd.limit {
		return
	}
	add := func(expected, got, message string) {
		*out = append(*out, Violation{Path: p.String(), Expected: expected, Got: got, Message: message})
	}
	if t, ok := n.get("type"); ok && t.kind == kindString && !isOfType(inst, t.s) {
		exp := describe(n, 0)
		msg := "must be " + exp + "; got " + typed(inst)
		if p == "" && inst.kind == kindString {
			if inner, err := parseText(inst.s); err == nil && inner.kind == kindObject {
				msg += "; that string holds JSON, so pass the object itself, not a quoted string"
			}
		}
		add(exp, typed(inst), msg)
		return
	}
	if e, ok := n.get("enum"); ok && e.kind == kindArray {
		found := false
		for _, want := range e.arr {
			if equalJSON(inst, want) {
				found = true
				break
			}
		}
		if !found {
			exp := "one of " + listValues(e.arr)
			add(exp, show(inst), "must be "+exp+"; got "+show(inst))
			return
		}
	}
	switch inst.kind {
	case kindObject:
		vd.object(n, inst, p, out)
	case kindArray:
		vd.array(n, inst, p, out)
	case kindString:
		vd.str(n, inst, p, add)
	case kindNumber:
		// Doubles compare as their shortest decimals do, so the exact
		// rational is needed only to word a violation.
		f, _ := inst.number()
		if lim, ok := numberKeyword(n, "minimum"); ok && f < lim {
			exp := "at least " + ratString(ratOf(lim).FloatString(10))
			add(exp, show(inst), "must be "+exp+"; got "+show(inst))
		}
		if lim, ok := numberKeyword(n, "maximum"); ok && f > lim {
			exp := "at most " + ratString(ratOf(lim).FloatString(10))
			add(exp, show(inst), "must be "+exp+"; got "+show(inst))
		}
	}
	if o, ok := n.get("oneOf"); ok && o.kind == kindArray {
		vd.oneOf(n, o, inst, p, out)
	}
}

func (vd validator) object(n, inst *value, p path, out *[]Violation) {
	props, _ := n.get("properties")
	if req, ok := n.get("required"); ok && req.kind == kindArray {
		seen := map[string]bool{}
		for _, r := range req.arr {
			if r.kind != kindString || seen[r.s] {
				continue
			}
			seen[r.s] = true
			if _, present := inst.get(r.s); present {
				continue
			}
			prop, _ := props.get(r.s)
			exp := describe(prop, 0)
			*out = append(*out, Violation{Path: p.key(r.s).String(), Expected: exp, Got: "nothing (the property is missing)",
				Message: "is required; add " + quoteJSON(r.s) + " with " + exp})
		}
	}
	if props == nil || props.kind != kindObject {
		return
	}
	for _, m := range inst.obj {
		if sub, ok := props.get(m.key); ok {
			vd.check(sub, m.val, p.key(m.key), out)
		}
	}
}

func (vd validator) array(n, inst *value, p path, out *[]Violation) {
	add := func(expected, got, message string) {
		*out = append(*out, Violation{Path: p.String(), Expected: expected, Got: got, Message: message})
	}
	if want, ok := countKeyword(n, "minItems"); ok && len(inst.arr) < want {
		exp := "at least " + Plural(want, "item")
		add(exp, Plural(len(inst.arr), "item"), "must have "+exp+"; got "+Plural(len(inst.arr), "item"))
	}
	if want, ok := countKeyword(n, "maxItems"); ok && len(inst.arr) > want {
		exp := "at most " + Plural(want, "item")
		add(exp, Plural(len(inst.arr), "item"), "must have "+exp+"; got "+Plural(len(inst.arr), "item"))
	}
	if u, ok := n.get("uniqueItems"); ok && u.kind == kindBool && u.b {
		if i, j, dup := firstDuplicate(inst.arr); dup {
			g := fmt.Sprintf("items %d and %d are equal", i, j) + " (" + show(inst.arr[i]) + ")"
			add("items that are all different", g, "must not repeat an item; "+g+", so remove the duplicate")
		}
	}
	if items, ok := n.get("items"); ok {
		for i, e := range inst.arr {
			vd.check(items, e, p.index(i), out)
		}
	}
}

func (vd validator) str(n, inst *value, p path, add func(expected, got, message string)) {
	_, hasMin := n.get("minLength")
	_, hasMax := n.get("maxLength")
	if hasMin || hasMax {
		length := utf8.RuneCountInString(inst.s)
		if want, ok := countKeyword(n, "minLength"); ok && length < want {
			exp := "at least " + Plural(want, "character")
			g := show(inst) + " (" + Plural(length, "character") + ")"
			add(exp, g, "must be "+exp+" long; got "+g)
		}
		if want, ok := countKeyword(n, "maxLength"); ok && length > want {
			exp := "at most " + Plural(want, "character")
			g := show(inst) + " (" + Plural(length, "character") + ")"
			add(exp, g, "must be "+exp+" long; got "+g)
		}
	}
	if pat, ok := n.get("pattern"); ok && pat.kind == kindString {
		re := vd.tool.pattern(pat.s)
		if re != nil && !re.MatchString(inst.s) {
			exp := "a string matching the pattern " + pat.s
			add(exp, show(inst), "must match the pattern "+pat.s+"; got "+show(inst))
		}
	}
}

// oneOf words a oneOf failure as one violation: the forms allowed, and why
// the value fits none of them (or which two it fits).
func (vd validator) oneOf(n, options, inst *value, p path, out *[]Violation) {
	// The forms are worded only for a violation: most values match.
	allForms := func() string {
		var forms []string
		for i, o := range options.arr {
			if i == maxOneOfForms {
				forms = append(forms, fmt.Sprintf("and %d more", len(options.arr)-i))
				break
			}
			forms = append(forms, fmt.Sprintf("(%d) %s", i+1, shorten(describe(o, 1))))
		}
		return strings.Join(forms, "; ")
	}
	// Whether a form fits, and its first reason if not, is all a form's
	// check needs to find.
	first := vd
	first.limit = 1
	matched := -1
	var reasons []string
	for i, o := range options.arr {
		var sub []Violation
		first.check(o, inst, p, &sub)
		if len(sub) == 0 {
			if matched >= 0 {
				forms := allForms()
				*out = append(*out, Violation{Path: p.String(), Expected: "exactly one of: " + forms, Got: typed(inst),
					Message: fmt.Sprintf("must match exactly one allowed form but matches forms %d and %d of: %s; change it so that only one fits", matched+1, i+1, forms)})
				return
			}
			matched = i
			continue
		}
		at := ""
		if sub[0].Path != p.String() {
			at = sub[0].Path + " "
		}
		// The first reason per form is enough to steer a retry.
		if i < maxOneOfForms {
			reasons = append(reasons, shorten(fmt.Sprintf("form %d: %s%s", i+1, at, sub[0].Message)))
		}
	}
	if matched < 0 {
		if more := len(options.arr) - len(reasons); more > 0 {
			reasons = append(reasons, fmt.Sprintf("and %d more forms", more))
		}
		forms := allForms()
		*out = append(*out, Violation{Path: p.String(), Expected: "exactly one of: " + forms, Got: typed(inst),
			Message: "must match exactly one of: " + forms + "; it matches none (" + strings.Join(reasons, "; ") + ")"})
	}
}

// shorten cuts s to maxReasonRunes characters.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxReasonRunes {
		return s
	}
	return string([]rune(s)[:maxReasonRunes]) + "…"
}

// equalJSON is JSON equality: numbers by value, objects regardless of
// member order.
func equalJSON(a, b *value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kindNull:
		return true
	case kindBool:
		return a.b == b.b
	case kindString:
		return a.s == b.s
	case kindNumber:
		fa, _ := a.number()
		fb, _ := b.number()
		return fa == fb
	case kindArray:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !equalJSON(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	case kindObject:
		if len(a.obj) != len(b.obj) {
			return false
		}
		for _, m := range a.obj {
			o, ok := b.get(m.key)
			if !ok || !equalJSON(m.val, o) {
				return false
			}
		}
		return true
	}
	return false
}

// firstDuplicate finds the first repeated item: the smallest i with an
// equal earlier item j (the smallest such j). Items are bucketed by their
// compact JSON first, so long arrays stay linear.
func firstDuplicate(arr []*value) (int, int, bool) {
	if len(arr) <= 20 {
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				if equalJSON(arr[i], arr[j]) {
					return j, i, true
				}
			}
		}
		return 0, 0, false
	}
	buckets := map[string][]int{}
	for i, e := range arr {
		key := hashKey(e)
		for _, j := range buckets[key] {
			if equalJSON(e, arr[j]) {
				return j, i, true
			}
		}
		buckets[key] = append(buckets[key], i)
	}
	return 0, 0, false
}

// hashKey is a bucket key equal for equal values: the kind and, for
// scalars, the value (numbers by value); containers bucket by length.
func hashKey(v *value) string {
	switch v.kind {
	case kindString:
		return "s" + v.s
	case kindNumber:
		f, _ := v.number()
		if f == 0 {
			f = 0 // -0 equals 0 but prints as -0
		}
		return fmt.Sprint("n", f)
	case kindBool:
		return fmt.Sprint("b", v.b)
	case kindArray:
		return fmt.Sprint("a", len(v.arr))
	case kindObject:
		return fmt.Sprint("o", len(v.obj))
	}
	return "z"
}

// ratOf is a double as an exact rational, from its shortest decimal form.
func ratOf(f float64) *big.Rat {
	r, ok := new(big.Rat).SetString(fmt.Sprint(f))
	if !ok {
		return new(big.Rat)
	}
	return r
}

func numberKeyword(n *value, k string) (float64, bool) {
	v, ok := n.get(k)
	if !ok || v.kind != kindNumber {
		return 0, false
	}
	return v.number()
}

func countKeyword(n *value, k string) (int, bool) {
	v, ok := n.get(k)
	if !ok || v.kind != kindNumber {
		return 0, false
	}
	f, ok := v.number()
	if !ok || f < 0 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// listValues prints enum values as JSON, the way the page wrote them.
func listValues(vals []*value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		b, _ := json.Marshal(v.toAny())
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

// pattern returns the compiled pattern, compiling each once per tool.
func (c *CompiledTool) pattern(src string) *regexp.Regexp {
	c.mu.Lock()
	defer c.mu.Unlock()
	if re, ok := c.patterns[src]; ok {
		return re
	}
	re, _ := compilePattern(src) // ValidateSkills proved it compiles
	if c.patterns == nil {
		c.patterns = map[string]*regexp.Regexp{}
	}
	c.patterns[src] = re
	return re
}
