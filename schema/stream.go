package schema

import (
	"errors"
	"slices"
	"strings"
)

// checkStreaming checks a manifest (or a session's skills) as it parses
// it, one tool definition at a time, and reuses the memory of each
// definition's tree for the next. Building the whole tree of a 1,000-tool
// manifest first touched megabytes of fresh memory, and in a fresh process
// (validate-tools) the page faults cost more than the checks
// (docs/performance.md). The problems are the tree path's, in its order:
// the plain-JSON problems of the whole text first, then the rules', each
// list in document order.
//
// ok is false when the text needs the whole tree to be worded: it is not
// JSON, its root is not an object (or, with bare, an array), or the root
// object repeats a key (the last value counts, at the first one's place).
// The caller then checks it with the tree, which says what is wrong.
func checkStreaming(text string, bare bool) (s Skills, problems []Problem, ok bool) {
	return (&checker{text: text}).checkStreaming(bare)
}

// checkStreaming is the function above with a checker of c.text.
func (c *checker) checkStreaming(bare bool) (s Skills, problems []Problem, ok bool) {
	data := c.text
	p := &parser{src: data}
	if strings.HasPrefix(data, "\uFEFF") {
		p.pos = 3
	}
	p.skipSpace()
	var err error
	switch {
	case p.pos < len(data) && data[p.pos] == '{':
		err = c.streamSkills(p, &s)
	case bare && p.pos < len(data) && data[p.pos] == '[':
		r := root()
		s.Tools, err = c.streamTools(p, 0, r.child("tools"))
	default:
		return Skills{}, nil, false
	}
	p.skipSpace()
	if err != nil || p.pos < len(data) {
		return Skills{}, nil, false
	}
	if c.plainProblems == nil {
		return s, c.problems, true
	}
	return s, append(c.plainProblems, c.problems...), true
}

// errNeedsTree stops a streaming check: the tree path takes over.
var errNeedsTree = errors.New("schema: the text needs the whole tree")

// streamSkills checks the skills object at p, member by member.
func (c *checker) streamSkills(p *parser, s *Skills) error {
	top := root()
	sawTools := false
	var keys []string // a repeated key needs the whole object
	p.pos++           // {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
	} else {
		for {
			p.skipSpace()
			if p.pos >= len(p.src) || p.src[p.pos] != '"' {
				return errNeedsTree
			}
			key, err := p.str()
			if err != nil || slices.Contains(keys, key) {
				return errNeedsTree
			}
			keys = append(keys, key)
			p.skipSpace()
			if p.pos >= len(p.src) || p.src[p.pos] != ':' {
				return errNeedsTree
			}
			p.pos++
			p.skipSpace()
			if key == "tools" && p.pos < len(p.src) && p.src[p.pos] == '[' {
				sawTools = true
				if s.Tools, err = c.streamTools(p, 1, top.child("tools")); err != nil {
					return err
				}
			} else {
				m := p.mark()
				v, err := p.value(1)
				if err != nil {
					return err
				}
				c.plainApart(v, top.child(key))
				c.skillsMember(key, v, top, s, &sawTools)
				p.release(m)
			}
			p.skipSpace()
			if p.pos >= len(p.src) {
				return errNeedsTree
			}
			if p.src[p.pos] == '}' {
				p.pos++
				break
			}
			if p.src[p.pos] != ',' {
				return errNeedsTree
			}
			p.pos++
		}
	}
	if !sawTools {
		c.missingTools(top)
	}
	return nil
}

// streamTools checks the array of tool definitions at p, whose elements
// are at depth+1, one definition at a time.
func (c *checker) streamTools(p *parser, depth int, at loc) ([]Tool, error) {
	out := []Tool{}
	firstUse := map[string]int{}
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return out, nil
	}
	for i := 0; ; i++ {
		p.skipSpace()
		m := p.mark()
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		c.plainApart(e, at.at(i))
		out = append(out, c.tool(e, at.at(i), i, firstUse))
		p.release(m) // nothing returned points into the definition's tree
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, errNeedsTree
		}
		if p.src[p.pos] == ']' {
			p.pos++
			return out, nil
		}
		if p.src[p.pos] != ',' {
			return nil, errNeedsTree
		}
		p.pos++
	}
}

// plainApart runs plain on one member's or element's value, into the list
// that comes before the rules' problems.
func (c *checker) plainApart(v *value, at loc) {
	if v.kind != kindArray && v.kind != kindObject && v.kind != kindNumber {
		return // as in plain: strings, booleans and null are always plain
	}
	rules := c.problems
	c.problems = c.plainProblems
	c.plain(v, at)
	c.plainProblems, c.problems = c.problems, rules
}

// parserMark is where the parser's slabs stood.
type parserMark struct {
	values []value
	mslab  []member
	eslab  []*value
}

func (p *parser) mark() parserMark { return parserMark{p.values, p.mslab, p.eslab} }

// release forgets every value parsed since m, so the next ones reuse its
// memory. Nothing may point into those values any more.
func (p *parser) release(m parserMark) {
	p.values = rewind(p.values, m.values)
	p.mslab = rewind(p.mslab, m.mslab)
	p.eslab = rewind(p.eslab, m.eslab)
}

// rewind takes back what was handed out of a slab since mark: back to
// mark's length when the slab is the same, to the start of a newer one.
func rewind[T any](cur, mark []T) []T {
	n := 0
	if cap(mark) > 0 && cap(cur) > 0 && &cur[:1][0] == &mark[:1][0] {
		n = len(mark)
	}
	clear(cur[n:]) // newValue expects zeroed values
	return cur[:n]
}
