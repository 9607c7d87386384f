package schema

import (
	"fmt"
	"math"
	"regexp"
	"sync"
	"time"
)

// Registry is a session's tools. A tool's schema is parsed on its first
// call, not here: most declared tools are never called in a session, and
// an unparsed tool costs only its definition (see docs/performance.md).
type Registry struct {
	byName map[string]*CompiledTool
	order  []*CompiledTool
}

// CompiledTool is one tool definition; its argument schema is parsed once,
// on first use. It is safe for concurrent use.
type CompiledTool struct {
	def *Tool // in the skills' own Tools array, not a copy of it

	mu       sync.Mutex
	tree     *value // the argsSchema, parsed on first use
	treeErr  error
	outTree  *value // the outputSchema, parsed on first use
	outErr   error
	patterns map[string]*regexp.Regexp // compiled on first use

	// A tool that gives inputSchema is checked by the standard validator;
	// each schema is compiled on first use, as the subset's are parsed.
	stdIn, stdOut standardCompiled
}

// NewRegistry holds the tools of skills that ValidateSkills (or
// ParseManifest) accepted. An error means s was not validated first.
func NewRegistry(s Skills) (*Registry, error) {
	r := &Registry{byName: make(map[string]*CompiledTool, len(s.Tools)), order: make([]*CompiledTool, 0, len(s.Tools))}
	for i := range s.Tools {
		t := &s.Tools[i]
		if _, dup := r.byName[t.Name]; dup {
			return nil, fmt.Errorf("schema: tools[%d]: name %q is used twice; validate the skills first", i, t.Name)
		}
		ct := &CompiledTool{def: t}
		r.byName[t.Name] = ct
		r.order = append(r.order, ct)
	}
	return r, nil
}

// schemaTree parses the argsSchema the first time it is needed.
func (c *CompiledTool) schemaTree() (*value, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tree == nil && c.treeErr == nil {
		c.tree, c.treeErr = parseJSON(c.def.ArgsSchema)
	}
	return c.tree, c.treeErr
}

// outputTree parses the outputSchema the first time it is needed; nil
// when the tool declares none.
func (c *CompiledTool) outputTree() (*value, error) {
	if len(c.def.OutputSchema) == 0 {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.outTree == nil && c.outErr == nil {
		c.outTree, c.outErr = parseJSON(c.def.OutputSchema)
	}
	return c.outTree, c.outErr
}

// Tool returns the tool named name.
func (r *Registry) Tool(name string) (*CompiledTool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Tools returns the definitions in declaration order.
func (r *Registry) Tools() []Tool {
	out := make([]Tool, len(r.order))
	for i, t := range r.order {
		out[i] = *t.def
	}
	return out
}

// Names returns the tool names in declaration order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.order))
	for i, t := range r.order {
		out[i] = t.def.Name
	}
	return out
}

// Def returns the tool's definition as declared.
func (c *CompiledTool) Def() Tool { return *c.def }

// Timeout is how long to wait for the tool's result: its timeoutMs, or def
// when it has none. A timeout beyond what a Duration holds is clamped.
func (c *CompiledTool) Timeout(def time.Duration) time.Duration {
	if c.def.TimeoutMs == nil || *c.def.TimeoutMs <= 0 {
		return def
	}
	ms := *c.def.TimeoutMs
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms) * time.Millisecond
}

// Hints is each tool's Tool.Hints, for the console (tools with none left out).
func (r *Registry) Hints() map[string][]string {
	out := map[string][]string{}
	for _, t := range r.order {
		if h := t.def.Hints(); len(h) > 0 {
			out[t.def.Name] = h
		}
	}
	return out
}
