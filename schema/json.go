package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The manifest and the agent's arguments are read with this small parser
// instead of encoding/json because the checks need what encoding/json
// throws away: the order of object members (problems come out in document
// order, deterministically), repeated keys (a "plain JSON" violation that
// JSON.parse and Go would silently resolve), the exact text of numbers (so
// 1.5 and "100" are told apart from 100) and the line and column of a
// syntax error.

// SyntaxError reports input that is not JSON at all. It is an error, not a
// Problem: nothing can be checked in text that does not parse.
type SyntaxError struct {
	Line   int    `json:"line"`   // 1-based
	Column int    `json:"column"` // 1-based, in characters
	Msg    string `json:"message"`
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// maxNesting bounds recursion so hostile input cannot exhaust the stack.
const maxNesting = 1000

type jsonKind uint8

const (
	kindNull jsonKind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// kindName is how messages name a JSON type.
func (k jsonKind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// value is one parsed JSON value.
type value struct {
	kind  jsonKind
	b     bool
	s     string   // a string's value or a number's text
	arr   []*value // array elements
	obj   []member // object members, first occurrence order, last value wins
	dups  []string // keys that occurred more than once in this object
	start int      // byte offsets of the value in the input
	end   int
}

type member struct {
	key string
	val *value
}

// get returns the member named key.
func (v *value) get(key string) (*value, bool) {
	if v == nil || v.kind != kindObject {
		return nil, false
	}
	for _, m := range v.obj {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// describe names a value for a message: its type, and for scalars the value.
func (v *value) describe() string {
	switch v.kind {
	case kindString:
		return "the string " + quoteShort(v.s)
	case kindNumber:
		return "the number " + v.s
	case kindBool:
		return strconv.FormatBool(v.b) + " (a boolean)"
	case kindNull:
		return "null"
	case kindArray:
		return "an array"
	default:
		return "an object"
	}
}

// number returns a number's value as JavaScript would see it. ok is false
// when the number does not fit a float64 (1e400), which plain JSON from a
// browser can never contain.
func (v *value) number() (f float64, ok bool) {
	if v.kind != kindNumber {
		return 0, false
	}
	if f, ok := smallInteger(v.s); ok {
		return f, true
	}
	f, err := strconv.ParseFloat(v.s, 64)
	return f, err == nil && !math.IsInf(f, 0)
}

// smallInteger reads an integer of at most 15 digits, which a double holds
// exactly, without ParseFloat: the bounds and timeouts of a manifest are
// such integers, and each is read several times.
func smallInteger(s string) (float64, bool) {
	digits := s
	if len(s) > 0 && s[0] == '-' {
		digits = s[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	n := int64(0)
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	f := float64(n)
	if len(digits) < len(s) {
		f = -f // -0 stays the negative zero ParseFloat gives
	}
	return f, true
}

// toAny converts to the representation the validator library takes.
// Numbers become float64 on purpose: it is what the page sees, and it keeps
// arbitrary-precision arithmetic (and its cost on 1e999999999) out of reach.
func (v *value) toAny() any {
	switch v.kind {
	case kindBool:
		return v.b
	case kindNumber:
		f, _ := v.number()
		return f
	case kindString:
		return v.s
	case kindArray:
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = e.toAny()
		}
		return out
	case kindObject:
		out := make(map[string]any, len(v.obj))
		for _, m := range v.obj {
			out[m.key] = m.val.toAny()
		}
		return out
	}
	return nil
}

// parseJSON parses exactly one JSON value, surrounded by optional
// whitespace and preceded by an optional UTF-8 byte order mark.
func parseJSON(data []byte) (*value, error) { return parseText(string(data)) }

// parseText is parseJSON of a text already held as a string: its strings
// and numbers are substrings of it, with no copy of the whole.
func parseText(text string) (*value, error) {
	p := &parser{src: text}
	if strings.HasPrefix(text, "\uFEFF") {
		p.pos = 3
	}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return nil, p.errorf("unexpected %s after the JSON value", p.peekDesc())
	}
	return v, nil
}

// The parser allocates in bulk: a 1,000-tool manifest is some 30,000
// values, and one allocation per value, per member list grown by append and
// per string was most of what checking it cost (docs/performance.md).
// Values come from slabs, an object's members and an array's elements are
// gathered on a stack shared by the whole parse and copied out once at
// their exact length, and strings and numbers are substrings of the input
// string (parseJSON's caller pays one copy of its bytes; a caller that
// holds the text as a string, none). A tree therefore keeps its whole input
// alive as long as any of its values: keep a string beyond the tree's life
// with strings.Clone.
type parser struct {
	src     string // the input: strings and numbers are substrings of it
	pos     int
	escaped []byte // a string with escapes, as bytes to decode; reused

	values  []value  // the current slab of values
	members []member // members of the objects being read, innermost last
	elems   []*value // elements of the arrays being read, innermost last
	mslab   []member // where finished member lists are copied to
	eslab   []*value // where finished element lists are copied to
}

// maxSlab bounds a slab: large manifests take several, a tool call's few
// values take one small one, and a manifest checked as a stream reuses one
// (a definition is some 40 values), so a larger one is only fresh pages.
const maxSlab = 256

func (p *parser) newValue(kind jsonKind) *value {
	if len(p.values) == cap(p.values) {
		// The first slab is sized from the input (about one value per 12
		// bytes in the manifests and arguments seen), later ones double.
		n := 2 * cap(p.values)
		if n == 0 {
			n = len(p.src)/12 + 1
		}
		p.values = make([]value, 0, min(max(n, 4), maxSlab))
	}
	p.values = p.values[:len(p.values)+1]
	v := &p.values[len(p.values)-1]
	v.kind = kind
	return v
}

// noElements is the elements of every empty array: not nil, as a parsed
// array's elements have always been.
var noElements = []*value{}

func (p *parser) value(depth int) (*value, error) {
	if depth > maxNesting {
		return nil, p.errorf("values nested more than %d levels deep", maxNesting)
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of input, expected a JSON value")
	}
	start := p.pos
	var v *value
	var err error
	switch c := p.src[p.pos]; {
	case c == '{':
		v, err = p.object(depth)
	case c == '[':
		v, err = p.array(depth)
	case c == '"':
		var s string
		if s, err = p.str(); err == nil {
			v = p.newValue(kindString)
			v.s = s
		}
	case c == '-' || (c >= '0' && c <= '9'):
		v, err = p.num()
	case c == 't':
		if v, err = p.literal("true", kindBool); err == nil {
			v.b = true
		}
	case c == 'f':
		v, err = p.literal("false", kindBool)
	case c == 'n':
		v, err = p.literal("null", kindNull)
	default:
		err = p.errorf("unexpected %s, expected a JSON value", p.peekDesc())
	}
	if err != nil {
		return nil, err
	}
	v.start, v.end = start, p.pos
	return v, nil
}

func (p *parser) literal(word string, kind jsonKind) (*value, error) {
	if !strings.HasPrefix(p.src[p.pos:], word) {
		return nil, p.errorf("unexpected %s, expected a JSON value", p.peekDesc())
	}
	p.pos += len(word)
	return p.newValue(kind), nil
}

func (p *parser) object(depth int) (*value, error) {
	v := p.newValue(kindObject)
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	for {
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errorf("unexpected %s, expected a quoted object key", p.peekDesc())
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("unexpected %s, expected ':' after an object key", p.peekDesc())
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.set(v, base, key, val)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of input, expected ',' or '}'")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.obj = p.keepMembers(p.members[base:])
			return v, nil
		default:
			return nil, p.errorf("unexpected %s, expected ',' or '}'", p.peekDesc())
		}
	}
}

// set adds a member of v, whose members so far are p.members[base:]; a
// repeated key keeps its first position, takes the last value (as
// JSON.parse does) and is remembered as a problem.
func (p *parser) set(v *value, base int, key string, val *value) {
	for i := base; i < len(p.members); i++ {
		if p.members[i].key == key {
			p.members[i].val = val
			v.dups = append(v.dups, key)
			return
		}
	}
	p.members = append(p.members, member{key, val})
}

// keepMembers copies a finished member list out of the stack.
func (p *parser) keepMembers(ms []member) []member {
	n := len(ms)
	if cap(p.mslab)-len(p.mslab) < n {
		p.mslab = make([]member, 0, max(n, min(cap(p.values), maxSlab)))
	}
	at := len(p.mslab)
	p.mslab = append(p.mslab, ms...)
	return p.mslab[at : at+n : at+n]
}

// keepElements copies a finished element list out of the stack.
func (p *parser) keepElements(es []*value) []*value {
	n := len(es)
	if cap(p.eslab)-len(p.eslab) < n {
		p.eslab = make([]*value, 0, max(n, min(cap(p.values)/2, maxSlab)))
	}
	at := len(p.eslab)
	p.eslab = append(p.eslab, es...)
	return p.eslab[at : at+n : at+n]
}

func (p *parser) array(depth int) (*value, error) {
	v := p.newValue(kindArray)
	v.arr = noElements
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	base := len(p.elems)
	defer func() { p.elems = p.elems[:base] }()
	for {
		p.skipSpace()
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.elems = append(p.elems, e)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of input, expected ',' or ']'")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			v.arr = p.keepElements(p.elems[base:])
			return v, nil
		default:
			return nil, p.errorf("unexpected %s, expected ',' or ']'", p.peekDesc())
		}
	}
}

func (p *parser) errorf(format string, args ...any) *SyntaxError {
	// Columns count characters (runes), as editors show them.
	line, col := 1, 1
	for i := 0; i < p.pos && i < len(p.src); {
		r, size := utf8.DecodeRuneInString(p.src[i:])
		i += size
		if r == '\n' {
			line++
			col = 1
		} else if r != '\uFEFF' || i > 3 {
			col++
		}
	}
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) peekDesc() string {
	if p.pos >= len(p.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return quoteJSON(string(r))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// str scans a string's extent by hand (for positions) and lets
// encoding/json decode its escapes, which it does exactly per RFC 8259.
func (p *parser) str() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	escaped, ascii := false, true
	for p.pos < len(p.src) {
		// Most of a manifest is plain ASCII inside strings: skip it in a
		// tight loop, and check UTF-8 only when a byte needs it.
		i, d := p.pos, p.src
		for i < len(d) && plainASCII[d[i]] {
			i++
		}
		p.pos = i
		if i == len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			p.pos++
			raw := p.src[start:p.pos]
			if !escaped && (ascii || utf8.ValidString(raw)) {
				return raw[1 : len(raw)-1], nil
			}
			var s string
			p.escaped = append(p.escaped[:0], raw...) // json.Unmarshal takes bytes
			if err := json.Unmarshal(p.escaped, &s); err != nil {
				p.pos = start
				return "", p.errorf("invalid string: %s", strings.TrimPrefix(err.Error(), "invalid character "))
			}
			return s, nil
		case c == '\\':
			escaped = true
			if p.pos+1 >= len(p.src) {
				p.pos++
				return "", p.errorf("unexpected end of input inside a string")
			}
			switch p.src[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				for i := 2; i < 6; i++ {
					if p.pos+i >= len(p.src) || !isHex(p.src[p.pos+i]) {
						return "", p.errorf("invalid \\u escape in a string: it needs four hex digits")
					}
				}
				p.pos += 6
			default:
				r, _ := utf8.DecodeRuneInString(p.src[p.pos+1:])
				return "", p.errorf("invalid escape \\%s in a string", string(r))
			}
		case c < 0x20:
			return "", p.errorf("control character %q inside a string: escape it", rune(c))
		default: // c >= 0x80
			ascii = false
			p.pos++
		}
	}
	return "", p.errorf("unexpected end of input inside a string")
}

// plainASCII marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *parser) num() (*value, error) {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.src) && p.src[p.pos] == '0' {
		p.pos++
		if p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			return nil, p.errorf("numbers cannot have leading zeros")
		}
	} else if digits() == 0 {
		return nil, p.errorf("unexpected %s in a number, expected a digit", p.peekDesc())
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errorf("unexpected %s after a decimal point, expected a digit", p.peekDesc())
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errorf("unexpected %s in an exponent, expected a digit", p.peekDesc())
		}
	}
	v := p.newValue(kindNumber)
	v.s = p.src[start:p.pos]
	return v, nil
}

// quoteShort quotes s as JSON, shortened for messages.
func quoteShort(s string) string {
	const max = 60
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return quoteJSON(s)
}

// quoteJSON quotes s as JSON without encoding/json's HTML escaping, so
// "<a>" reads as "<a>" in a message.
func quoteJSON(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// compact re-encodes a value tree as JSON.
func compact(v *value) json.RawMessage {
	var b bytes.Buffer
	writeJSON(&b, v)
	return json.RawMessage(b.Bytes())
}

func writeJSON(b *bytes.Buffer, v *value) {
	switch v.kind {
	case kindNull:
		b.WriteString("null")
	case kindBool:
		if v.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case kindNumber:
		b.WriteString(v.s)
	case kindString:
		b.WriteString(quoteJSON(v.s))
	case kindArray:
		b.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case kindObject:
		b.WriteByte('{')
		for i, m := range v.obj {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteJSON(m.key))
			b.WriteByte(':')
			writeJSON(b, m.val)
		}
		b.WriteByte('}')
	}
}
