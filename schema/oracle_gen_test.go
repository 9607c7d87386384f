package schema

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A generator of schemas within Pedelec's subset and of arguments for them,
// driven by fuzz bytes, for FuzzValidatorMatchesOracle. Every choice reads
// one byte, and a finished input reads zeros, so each input is one schema
// and one set of arguments, and the fuzzer's mutations move through them.
//
// It stays away from the subset's documented deviations from the standard,
// which would be disagreements by design (docs/schema.md): numbers are
// always the shortest decimal of a double (so comparing doubles and
// comparing exact decimals agree), never beyond a double, and a pattern
// reaches the oracle in RE2 spelling (the \u escapes Pedelec translates are
// spelled as the characters they stand for).

type fuzzBytes struct {
	data []byte
	pos  int
	// values counts generated values: nested long arrays would otherwise
	// multiply into millions of items.
	values int
}

// valueBudget bounds the values of one set of arguments.
const valueBudget = 400

func (s *fuzzBytes) next() byte {
	if s.pos >= len(s.data) {
		return 0
	}
	b := s.data[s.pos]
	s.pos++
	return b
}

// intn is a choice among n (at most 256) options.
func (s *fuzzBytes) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return int(s.next()) % n
}

// oneIn is true about once in n, and never once the bytes run out, so a
// short input is a simple schema.
func (s *fuzzBytes) oneIn(n int) bool { return s.intn(n) == n-1 }

// gv is a generated JSON value that keeps how it is written: a number's
// text, a string's escaping, and a pattern's two spellings.
type gv struct {
	kind   jsonKind
	b      bool
	num    float64
	text   string // a number as written
	s      string
	oracle string // a pattern as the oracle reads it, when pattern is set
	escape bool   // write non-ASCII as \u escapes
	arr    []*gv
	keys   []string
	vals   []*gv
	dupKey int // >0: write member dupKey-1 once more, first, with null
}

func (v *gv) get(key string) *gv {
	if v == nil {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

func (v *gv) set(key string, val *gv) {
	for i, k := range v.keys {
		if k == key {
			v.vals[i] = val
			return
		}
	}
	v.keys = append(v.keys, key)
	v.vals = append(v.vals, val)
}

func (v *gv) del(key string) {
	for i, k := range v.keys {
		if k == key {
			v.keys = slices.Delete(v.keys, i, i+1)
			v.vals = slices.Delete(v.vals, i, i+1)
			return
		}
	}
}

// text writes v as JSON; oracle picks the oracle's spelling of patterns.
func (v *gv) json(oracle bool) string {
	var b strings.Builder
	v.write(&b, oracle)
	return b.String()
}

func (v *gv) write(b *strings.Builder, oracle bool) {
	switch v.kind {
	case kindNull:
		b.WriteString("null")
	case kindBool:
		b.WriteString(strconv.FormatBool(v.b))
	case kindNumber:
		b.WriteString(v.text)
	case kindString:
		s := v.s
		if oracle && v.oracle != "" {
			s = v.oracle
		}
		writeGenString(b, s, v.escape)
	case kindArray:
		b.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b, oracle)
		}
		b.WriteByte(']')
	case kindObject:
		b.WriteByte('{')
		if v.dupKey > 0 && v.dupKey <= len(v.keys) {
			// The first of a repeated key loses, in JSON.parse and in Go.
			writeGenString(b, v.keys[v.dupKey-1], false)
			b.WriteString(":null,")
		}
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeGenString(b, k, false)
			b.WriteByte(':')
			v.vals[i].write(b, oracle)
		}
		b.WriteByte('}')
	}
}

// writeGenString quotes s; escape spells every non-ASCII character as \u
// escapes (astral ones as surrogate pairs), as JSON.stringify never does
// but JSON allows.
func writeGenString(b *strings.Builder, s string, escape bool) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u` + hex4(r))
		case r >= 0x80 && escape:
			if r >= 0x10000 {
				r -= 0x10000
				b.WriteString(`\u` + hex4(0xD800+(r>>10)) + `\u` + hex4(0xDC00+(r&0x3FF)))
			} else {
				b.WriteString(`\u` + hex4(r))
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func hex4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}

// number spells f in one of the ways JSON allows that keep its exact
// decimal value: 100, 1e+02, 1E2, 100.0, 1000e-1.
func (s *fuzzBytes) number(f float64) *gv {
	if math.IsInf(f, 0) {
		f = math.Copysign(math.MaxFloat64, f) // JSON has no infinity
	}
	short := strconv.FormatFloat(f, 'g', -1, 64)
	text := short
	switch s.intn(8) {
	case 1:
		text = strconv.FormatFloat(f, 'e', -1, 64)
	case 2:
		text = strings.ToUpper(strconv.FormatFloat(f, 'e', -1, 64))
	case 3:
		text = strconv.FormatFloat(f, 'f', -1, 64)
	case 4:
		if !strings.ContainsAny(short, ".eE") {
			text = short + ".0"
		}
	case 5:
		// Move the decimal point into the exponent: 1.5e+00 → 15e-1.
		e := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(e, "e")
		x, _ := strconv.Atoi(exp)
		whole, frac, _ := strings.Cut(mant, ".")
		text = whole + frac + "e" + strconv.Itoa(x-len(frac))
	case 6:
		text = strings.Replace(strconv.FormatFloat(f, 'e', -1, 64), "e+", "e", 1)
	}
	return &gv{kind: kindNumber, num: f, text: text}
}

func genString(s string) *gv { return &gv{kind: kindString, s: s} }

// Values the generator draws from: edges of the number line and strings
// whose length in code points differs from their length in bytes or in
// UTF-16 units.
var (
	genNumbers = []float64{0, math.Copysign(0, -1), 1, -1, 2, 3, 0.5, -0.5, 0.1, 0.2, 0.3, 1.5, 2.5, 10, 100, -100,
		1e21, 1e-7, 9007199254740992, -9007199254740992, 9007199254740994, 1e308, -1e308, 5e-324,
		math.MaxFloat64, 4294967296, 123456789012345680}
	genStrings = []string{"", "a", "b", "ab", "abc", "A", "0", "42", "é", "e\u0301", "😀", "😀😀", "日本語",
		"\u00a0", " ", "\t", "\n", "\r", "\u2028", "x y", "\x00", "a.b", "true", "null", "{}", "\ufffd"}
	genKeys = []string{"a", "b", "c", "", "x y", "~", "/", "a/b", "~1", "😀", "__proto__", "$ref", "é"}
)

// genPatternPiece is one atom of a generated pattern: how Pedelec is given
// it (ECMA-262), how the oracle is, and strings it matches.
type genPatternPiece struct {
	ecma, re2 string
	samples   []string
}

var genPieces = []genPatternPiece{
	{"a", "a", []string{"a"}},
	{"b", "b", []string{"b"}},
	{"7", "7", []string{"7"}},
	{`\.`, `\.`, []string{"."}},
	{`\d`, `\d`, []string{"0", "9"}},
	{`\w`, `\w`, []string{"_", "Z"}},
	{`\s`, `\s`, []string{" ", "\t"}},
	{`[a-c]`, `[a-c]`, []string{"a", "c"}},
	{`[^a]`, `[^a]`, []string{"b", "é"}},
	{`.`, `.`, []string{"x", "é"}},
	{`\u0041`, `A`, []string{"A"}},
	{`\u00e9`, `é`, []string{"é"}},
	{`\u002E`, `\.`, []string{"."}},
	{`\u{1F600}`, `😀`, []string{"😀"}},
	{`\uD83D\uDE00`, `😀`, []string{"😀"}},
	{`é`, `é`, []string{"é"}},
	{`😀`, `😀`, []string{"😀"}},
	{`\\u0041`, `\\u0041`, []string{`\u0041`}},
}

// pattern builds a pattern and a few strings it matches.
func (s *fuzzBytes) pattern() (ecma, re2 string, samples []string) {
	var e, r strings.Builder
	sample := []string{""}
	anchored := s.intn(3)
	if anchored > 0 {
		e.WriteByte('^')
		r.WriteByte('^')
	}
	for range 1 + s.intn(4) {
		var pe, pr string
		var ps []string
		if s.oneIn(5) {
			// A group with alternatives.
			a, b := genPieces[s.intn(len(genPieces))], genPieces[s.intn(len(genPieces))]
			open := "("
			if s.oneIn(2) {
				open = "(?:"
			}
			pe, pr = open+a.ecma+"|"+b.ecma+")", open+a.re2+"|"+b.re2+")"
			ps = append(slices.Clone(a.samples), b.samples...)
		} else {
			p := genPieces[s.intn(len(genPieces))]
			pe, pr, ps = p.ecma, p.re2, p.samples
		}
		lo, hi := 1, 1
		switch s.intn(8) {
		case 1:
			pe, pr, lo, hi = "(?:"+pe+")?", "(?:"+pr+")?", 0, 1
		case 2:
			pe, pr, lo, hi = "(?:"+pe+")*", "(?:"+pr+")*", 0, 3
		case 3:
			pe, pr, lo, hi = "(?:"+pe+")+", "(?:"+pr+")+", 1, 3
		case 4:
			pe, pr, lo, hi = "(?:"+pe+"){2,3}", "(?:"+pr+"){2,3}", 2, 3
		}
		e.WriteString(pe)
		r.WriteString(pr)
		next := make([]string, 0, len(sample))
		for _, pre := range sample {
			n := lo + s.intn(hi-lo+1)
			var b strings.Builder
			b.WriteString(pre)
			for range n {
				b.WriteString(ps[s.intn(len(ps))])
			}
			next = append(next, b.String())
		}
		sample = next
	}
	if anchored == 2 {
		e.WriteByte('$')
		r.WriteByte('$')
	}
	return e.String(), r.String(), sample
}

// genSchema is a generated schema node and what arguments generation
// needs to know about it.
type genSchema struct {
	node     *gv
	typ      string // "" for a oneOf node
	options  []*genSchema
	items    *genSchema
	props    []string
	sub      []*genSchema // by props
	required []string
	samples  []string // strings that match the pattern
	enum     []*gv
	lo, hi   *float64 // minimum and maximum, or lengths and counts
}

var genTypes = []string{"string", "number", "integer", "boolean", "array", "object"}

// schema generates a node of type typ ("" to choose one, or oneOf).
func (s *fuzzBytes) schema(depth int, typ string) *genSchema {
	g := &genSchema{node: &gv{kind: kindObject}}
	n := g.node
	if typ == "" {
		if depth < 4 && s.oneIn(6) {
			for range 1 + s.intn(3) {
				g.options = append(g.options, s.schema(depth+1, ""))
			}
			opts := &gv{kind: kindArray}
			for _, o := range g.options {
				opts.arr = append(opts.arr, o.node)
			}
			n.set("oneOf", opts)
			s.annotations(n)
			return g
		}
		typ = genTypes[s.intn(len(genTypes))]
		if depth >= 4 && (typ == "array" || typ == "object") {
			typ = "string"
		}
	}
	g.typ = typ
	n.set("type", genString(typ))
	s.annotations(n)
	switch typ {
	case "string":
		if s.oneIn(2) {
			lo, hi := s.intn(4), s.intn(6)
			if lo > hi {
				lo, hi = hi, lo
			}
			s.bounds(g, "minLength", "maxLength", float64(lo), float64(hi))
		}
		if s.oneIn(2) {
			e, r, samples := s.pattern()
			n.set("pattern", &gv{kind: kindString, s: e, oracle: r})
			g.samples = samples
		}
		if s.oneIn(4) {
			s.enum(g, func() *gv {
				if len(g.samples) > 0 && s.oneIn(2) {
					return genString(g.samples[s.intn(len(g.samples))])
				}
				return genString(genStrings[s.intn(len(genStrings))])
			})
		}
	case "number", "integer":
		if s.oneIn(2) {
			a, b := s.someNumber(typ == "integer"), s.someNumber(typ == "integer")
			if a > b {
				a, b = b, a
			}
			s.bounds(g, "minimum", "maximum", a, b)
		}
		if s.oneIn(4) {
			s.enum(g, func() *gv { return s.number(s.someNumber(typ == "integer")) })
		}
	case "boolean":
		if s.oneIn(3) {
			s.enum(g, func() *gv { return &gv{kind: kindBool, b: s.oneIn(2)} })
		}
	case "array":
		if s.oneIn(2) {
			lo, hi := s.intn(3), s.intn(4)
			if lo > hi {
				lo, hi = hi, lo
			}
			s.bounds(g, "minItems", "maxItems", float64(lo), float64(hi))
		}
		if s.oneIn(2) {
			n.set("uniqueItems", &gv{kind: kindBool, b: !s.oneIn(4)})
		}
		if !s.oneIn(4) {
			g.items = s.schema(depth+1, "")
			n.set("items", g.items.node)
		}
	case "object":
		if depth == 0 || !s.oneIn(4) {
			props := &gv{kind: kindObject}
			for range s.intn(5) {
				k := genKeys[s.intn(len(genKeys))]
				if props.get(k) != nil {
					continue
				}
				sub := s.schema(depth+1, "")
				props.set(k, sub.node)
				g.props = append(g.props, k)
				g.sub = append(g.sub, sub)
			}
			n.set("properties", props)
			if s.oneIn(2) {
				req := &gv{kind: kindArray}
				for _, k := range g.props {
					if s.oneIn(2) {
						req.arr = append(req.arr, genString(k))
						g.required = append(g.required, k)
					}
				}
				n.set("required", req)
			}
		}
	}
	return g
}

// bounds sets zero, one or both of a pair of bounds, lo <= hi.
func (s *fuzzBytes) bounds(g *genSchema, loKey, hiKey string, lo, hi float64) {
	switch s.intn(3) {
	case 0:
		g.node.set(loKey, s.number(lo))
		g.lo = &lo
	case 1:
		g.node.set(hiKey, s.number(hi))
		g.hi = &hi
	default:
		g.node.set(loKey, s.number(lo))
		g.node.set(hiKey, s.number(hi))
		g.lo, g.hi = &lo, &hi
	}
}

func (s *fuzzBytes) enum(g *genSchema, value func() *gv) {
	e := &gv{kind: kindArray}
	for range 1 + s.intn(4) {
		e.arr = append(e.arr, value())
	}
	g.enum = e.arr
	g.node.set("enum", e)
}

// annotations adds the keywords that never change a verdict.
func (s *fuzzBytes) annotations(n *gv) {
	if s.oneIn(4) {
		n.set("description", genString(genStrings[s.intn(len(genStrings))]))
	}
	if s.oneIn(6) {
		n.set("default", s.anyValue(1))
	}
	if s.oneIn(8) {
		n.set("examples", &gv{kind: kindArray, arr: []*gv{s.anyValue(1)}})
	}
}

func (s *fuzzBytes) someNumber(integer bool) float64 {
	f := genNumbers[s.intn(len(genNumbers))]
	switch s.intn(4) {
	case 1:
		f = float64(int(s.next()) - 128)
	case 2:
		f = float64(int(s.next())-128) / 4
	}
	if integer {
		f = math.Trunc(f)
	}
	return f
}

// anyValue is a value of any type, ignoring every schema.
func (s *fuzzBytes) anyValue(depth int) *gv {
	s.values++
	if s.values > valueBudget {
		return &gv{kind: kindNull}
	}
	switch s.intn(7) {
	case 0:
		return &gv{kind: kindNull}
	case 1:
		return &gv{kind: kindBool, b: s.oneIn(2)}
	case 2:
		return s.number(s.someNumber(false))
	case 3, 4:
		v := genString(genStrings[s.intn(len(genStrings))])
		v.escape = s.oneIn(3)
		return v
	case 5:
		a := &gv{kind: kindArray}
		if depth < 3 {
			for range s.intn(4) {
				a.arr = append(a.arr, s.anyValue(depth+1))
			}
		}
		return a
	}
	o := &gv{kind: kindObject}
	if depth < 3 {
		for range s.intn(3) {
			o.set(genKeys[s.intn(len(genKeys))], s.anyValue(depth+1))
		}
	}
	return o
}

// instance generates arguments meant to be valid for g; fuzzing and the
// mutations after it make many of them just invalid.
func (s *fuzzBytes) instance(g *genSchema, depth int) *gv {
	s.values++
	if depth > 8 || s.values > valueBudget {
		return s.anyValue(2)
	}
	if len(g.options) > 0 {
		return s.instance(g.options[s.intn(len(g.options))], depth+1)
	}
	if len(g.enum) > 0 && !s.oneIn(4) {
		e := g.enum[s.intn(len(g.enum))]
		if e.kind == kindNumber {
			return s.number(e.num) // the same value, maybe spelled otherwise
		}
		return &gv{kind: e.kind, b: e.b, s: e.s, escape: s.oneIn(3)}
	}
	switch g.typ {
	case "string":
		var str string
		switch {
		case len(g.samples) > 0 && !s.oneIn(4):
			str = g.samples[s.intn(len(g.samples))]
		default:
			str = genStrings[s.intn(len(genStrings))]
		}
		if g.lo != nil && s.oneIn(2) {
			for utf8.RuneCountInString(str) < int(*g.lo) {
				str += genStrings[1+s.intn(len(genStrings)-1)]
			}
		}
		v := genString(str)
		v.escape = s.oneIn(3)
		return v
	case "number", "integer":
		f := s.someNumber(g.typ == "integer")
		switch {
		case g.lo != nil && s.oneIn(3):
			f = *g.lo
		case g.hi != nil && s.oneIn(3):
			f = *g.hi
		case g.lo != nil && g.hi != nil && s.oneIn(2):
			f = *g.lo + (*g.hi-*g.lo)/2
			if g.typ == "integer" {
				f = math.Floor(f)
			}
		}
		return s.number(f)
	case "boolean":
		return &gv{kind: kindBool, b: s.oneIn(2)}
	case "array":
		a := &gv{kind: kindArray}
		n := s.intn(4)
		if g.lo != nil && n < int(*g.lo) {
			n = int(*g.lo)
		}
		if s.oneIn(8) {
			n = 21 + s.intn(8) // long arrays take another path for uniqueItems
		}
		for range n {
			if g.items != nil {
				a.arr = append(a.arr, s.instance(g.items, depth+1))
			} else {
				a.arr = append(a.arr, s.anyValue(2))
			}
		}
		return a
	case "object":
		o := &gv{kind: kindObject}
		for i, k := range g.props {
			if slices.Contains(g.required, k) || s.oneIn(2) {
				o.set(k, s.instance(g.sub[i], depth+1))
			}
		}
		if s.oneIn(6) {
			o.set(genKeys[s.intn(len(genKeys))], s.anyValue(2))
		}
		return o
	}
	return s.anyValue(2)
}

// mutate changes one value somewhere in v, returning the new root.
func (s *fuzzBytes) mutate(v *gv) *gv {
	// Walk down to a random node.
	if s.oneIn(3) || (len(v.arr) == 0 && len(v.vals) == 0) {
		return s.mutateHere(v)
	}
	if v.kind == kindArray {
		i := s.intn(len(v.arr))
		v.arr[i] = s.mutate(v.arr[i])
	} else {
		i := s.intn(len(v.vals))
		v.vals[i] = s.mutate(v.vals[i])
	}
	return v
}

func (s *fuzzBytes) mutateHere(v *gv) *gv {
	switch s.intn(6) {
	case 0:
		return s.anyValue(2)
	case 1:
		if v.kind == kindNumber {
			switch s.intn(5) {
			case 0:
				return s.number(v.num + 1)
			case 1:
				return s.number(v.num - 1)
			case 2:
				return s.number(v.num + 0.5)
			case 3:
				return s.number(math.Nextafter(v.num, math.Inf(1)))
			default:
				return s.number(-v.num)
			}
		}
	case 2:
		if v.kind == kindString {
			r := []rune(v.s)
			switch {
			case len(r) > 0 && s.oneIn(2):
				i := s.intn(len(r))
				r = slices.Delete(r, i, i+1)
			default:
				add := []rune(genStrings[s.intn(len(genStrings))])
				i := s.intn(len(r) + 1)
				r = slices.Insert(r, i, add...)
			}
			return &gv{kind: kindString, s: string(r), escape: v.escape}
		}
	case 3:
		if v.kind == kindArray && len(v.arr) > 0 {
			// Repeat an item, as an equal value spelled anew.
			v.arr = append(v.arr, respell(s, v.arr[s.intn(len(v.arr))]))
			return v
		}
	case 4:
		if v.kind == kindObject && len(v.keys) > 0 {
			if s.oneIn(2) {
				v.del(v.keys[s.intn(len(v.keys))])
			} else {
				v.dupKey = 1 + s.intn(len(v.keys))
			}
			return v
		}
	}
	return v
}

// respell copies v with each number spelled anew and -0 for 0 now and then.
func respell(s *fuzzBytes, v *gv) *gv {
	switch v.kind {
	case kindNumber:
		f := v.num
		if f == 0 && s.oneIn(2) {
			f = -f
		}
		return s.number(f)
	case kindArray:
		c := &gv{kind: kindArray}
		for _, e := range v.arr {
			c.arr = append(c.arr, respell(s, e))
		}
		return c
	case kindObject:
		c := &gv{kind: kindObject}
		for i, k := range v.keys {
			c.set(k, respell(s, v.vals[i]))
		}
		return c
	}
	c := *v
	return &c
}
