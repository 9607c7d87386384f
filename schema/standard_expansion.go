package schema

import (
	"math"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A $ref costs what it refers to, each time it is used: a schema of a
// kilobyte whose definitions each refer to the next twice in an anyOf had
// one value checked against 2^30 definitions (20 levels took 32 s for
// {"x": 1}, and the error tree grew as fast; the hostile review of
// 2026-12-02). The schema's own node count, which bounds a check's work
// (maxStandardWork), does not see it. So the compiled schema is measured:
// how many subschemas one value meets at one place (through $ref, allOf,
// anyOf, oneOf, not, if/then/else and dependent schemas, which apply where
// the value is), at most maxExpansion; a $ref that comes back to itself
// at the same place is an endless check. Keywords that go into the value
// (properties, items, ...) start a new place, so recursive data schemas
// (a Node whose children are Nodes) are fine.

// maxExpansion bounds the subschemas one value meets at one place.
const maxExpansion = 10_000

// endless is the expansion of a schema that meets itself at one place.
const endless = math.MaxInt

// expansion is the most subschemas one value meets at one place of sch's
// tree: endless for a cycle, capped past maxExpansion.
func expansion(sch *jsonschema.Schema) int {
	m := &expansionWalk{cost: map[*jsonschema.Schema]int{}, busy: map[*jsonschema.Schema]bool{}}
	worst := 0
	m.each(sch, func(s *jsonschema.Schema) {
		worst = max(worst, m.at(s))
	})
	return worst
}

type expansionWalk struct {
	cost map[*jsonschema.Schema]int  // at(s), once known
	busy map[*jsonschema.Schema]bool // on the path of at(): a cycle
	seen map[*jsonschema.Schema]bool // visited by each
}

// at is how many subschemas a value meets where s applies, s included.
func (m *expansionWalk) at(s *jsonschema.Schema) int {
	if s == nil {
		return 0
	}
	if c, ok := m.cost[s]; ok {
		return c
	}
	if m.busy[s] {
		return endless
	}
	m.busy[s] = true
	total := 1
	for _, c := range samePlace(s) {
		n := m.at(c)
		if n == endless {
			total = endless
			break
		}
		total = min(total+n, maxExpansion+1)
	}
	delete(m.busy, s)
	m.cost[s] = total
	return total
}

// samePlace are the subschemas of s that apply to the value s applies to.
func samePlace(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, d := range s.DependentSchemas {
		out = append(out, d)
	}
	for _, d := range s.Dependencies {
		if d, ok := d.(*jsonschema.Schema); ok {
			out = append(out, d)
		}
	}
	return out
}

// each calls f once for every subschema reachable from s.
func (m *expansionWalk) each(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if m.seen == nil {
		m.seen = map[*jsonschema.Schema]bool{}
	}
	var visit func(*jsonschema.Schema)
	visit = func(s *jsonschema.Schema) {
		if s == nil || m.seen[s] {
			return
		}
		m.seen[s] = true
		f(s)
		for _, c := range samePlace(s) {
			visit(c)
		}
		for _, c := range intoValue(s) {
			visit(c)
		}
	}
	visit(s)
}

// intoValue are the subschemas of s that apply to parts of the value.
func intoValue(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema}
	for _, p := range s.Properties {
		out = append(out, p)
	}
	for _, p := range s.PatternProperties {
		out = append(out, p)
	}
	for _, a := range []any{s.AdditionalProperties, s.Items, s.AdditionalItems} {
		switch a := a.(type) {
		case *jsonschema.Schema:
			out = append(out, a)
		case []*jsonschema.Schema:
			out = append(out, a...)
		}
	}
	out = append(out, s.PrefixItems...)
	return out
}
