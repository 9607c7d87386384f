package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// A tool's inputSchema is compiled by santhosh-tekuri/jsonschema and
// checked by it, keyword by keyword; this file sets the compiler up and
// turns its verdict into the Violations every argument check reports.

// noFetch is the compiler's loader: a schema is only what the page sent.
// The definition check refuses $refs out of the schema first, so this is
// the guard behind it.
type noFetch struct{}

func (noFetch) Load(u string) (any, error) {
	return nil, errors.New("core never fetches schemas") // reported by the definition check first
}

// compileStandard compiles one schema of dialect d. Numbers are doubles,
// as the page has them (toAny): the library's exact decimals would make
// 1e-999999999 a rational of a billion digits.
// Its backtracking patterns share budget (nil when only checking a
// definition).
func compileStandard(v *value, d dialect, budget *patternBudget) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(d.draft)
	c.AssertFormat()
	c.AssertContent()
	c.UseLoader(noFetch{})
	c.UseRegexpEngine(patternEngine(budget))
	if err := c.AddResource(standardBase, v.toAny()); err != nil {
		return nil, err
	}
	return c.Compile(standardBase)
}

// dialectOfSchema is the dialect a checked schema declares.
func dialectOfSchema(v *value) dialect {
	if s, ok := v.get("$schema"); ok && s.kind == kindString {
		if d, ok := dialectOf(s.s); ok {
			return d
		}
	}
	return draft2020()
}

// printer words the library's messages, made on first use.
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// standardCompiled is a tool's compiled standard schema, made on first use.
type standardCompiled struct {
	once   sync.Once
	sch    *jsonschema.Schema
	parsed *value
	err    error
	budget patternBudget // its backtracking patterns' time, per check
	// nodes: the most schema nodes one value meets, the schema's own or,
	// through $refs, its expansion (standard_expansion.go, which the
	// definition check bounds). Fixed once compiled, so a check's work
	// bound does not walk the schema again.
	nodes int
}

func (s *standardCompiled) get(raw []byte) (*jsonschema.Schema, error) {
	s.once.Do(func() {
		v, err := parseJSON(raw)
		if err != nil {
			s.err = err
			return
		}
		s.parsed = v
		s.sch, s.err = compileStandard(v, dialectOfSchema(v), &s.budget)
		s.budget.sealed = true
		if s.err == nil {
			s.nodes = max(countValues(v), expansion(s.sch))
		}
	})
	return s.sch, s.err
}

// maxStandardWork bounds one check by the standard validator: the values
// checked times the schema's nodes. The library evaluates every value
// against every form and collects every error, with no way to stop at
// MaxViolations: an array of 5,000 numbers against items of 200 anyOf forms
// took 3.7 s and 394 MB, and a frame holds 200 times as many. 4 million
// lets a 1 MiB array of strings through a small schema, and keeps the worst
// case to seconds (docs/schema.md).
const maxStandardWork = 4_000_000

// validateStandard checks inst against sch, compiled as c, and returns
// every violation, sorted by path.
func validateStandard(c *standardCompiled, sch *jsonschema.Schema, inst *value) []Violation {
	budget := &c.budget
	values, nodes := countValues(inst), c.nodes
	if values*nodes > maxStandardWork {
		got := fmt.Sprintf("%d values against a schema of %d nodes", values, nodes)
		return []Violation{{Path: RootPath, Expected: fmt.Sprintf("a value small enough to check (values × schema nodes at most %d)", maxStandardWork), Got: got,
			Message: fmt.Sprintf("is too large to check against this schema (%s, over %d); send less in one call", got, maxStandardWork)}}
	}
	end := budget.begin()
	err := sch.Validate(inst.toAny())
	cut := end()
	var out []Violation
	if err != nil {
		var verr *jsonschema.ValidationError
		if !errors.As(err, &verr) {
			return []Violation{{Path: RootPath, Expected: "a value the schema can check", Got: show(inst), Message: "could not be checked: " + err.Error()}}
		}
		vd := &verdict{inst: inst, schema: c.tree()}
		vd.walk(verr)
		out = vd.out
	}
	if cut {
		// Fail closed: a match the limit stopped counted as no match,
		// which a "not" or an anyOf form would have let through.
		out = append(out, Violation{Path: RootPath, Expected: fmt.Sprintf("a value the schema's patterns can check within %s", patternCheckLimit), Got: "a value they backtrack on",
			Message: fmt.Sprintf("was not checked to the end: the schema's backtracking patterns (lookaround, backreferences) took over %s on it, and what was left was not checked; send values that match plainly", patternCheckLimit)})
	}
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// tree is the parsed schema, which words the violations.
func (s *standardCompiled) tree() *value { return s.parsed }

// validateStandardArgs is ValidateArgs for a tool that gives inputSchema.
func (c *CompiledTool) validateStandardArgs(args json.RawMessage) []Violation {
	sch, err := c.stdIn.get(c.def.InputSchema)
	if err != nil {
		return []Violation{{Path: RootPath, Expected: "arguments for a tool whose schema Core can compile", Got: "a tool whose inputSchema does not compile",
			Message: "the tool's inputSchema cannot be compiled (" + err.Error() + "); the page must declare a valid schema"}}
	}
	inst, out := readArgs(args, c.stdIn.tree())
	if inst == nil {
		return out
	}
	return validateStandard(&c.stdIn, sch, inst)
}

// validateStandardResult is ValidateResult for a tool that gives
// inputSchema: its outputSchema is in the same dialects.
func (c *CompiledTool) validateStandardResult(inst *value) []Violation {
	sch, err := c.stdOut.get(c.def.OutputSchema)
	if err != nil {
		return []Violation{{Path: RootPath, Expected: "a result for a tool whose outputSchema Core can compile", Got: "a tool whose outputSchema does not compile",
			Message: "the tool's outputSchema cannot be compiled (" + err.Error() + "); the page must declare a valid schema"}}
	}
	return validateStandard(&c.stdOut, sch, inst)
}

// countValues counts the JSON values in v, v included.
func countValues(v *value) int {
	n := 1
	for _, e := range v.arr {
		n += countValues(e)
	}
	for _, m := range v.obj {
		n += countValues(m.val)
	}
	return n
}
