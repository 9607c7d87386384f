package schema

import (
	"fmt"
	"math"
	"regexp"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Registry is a session's tools, each with its argument validator compiled
// once, so a tool call costs one validation and no compilation.
type Registry struct {
	byName map[string]*CompiledTool
	order  []*CompiledTool
}

// CompiledTool is one tool definition with its compiled argument schema.
// It is immutable and safe for concurrent use.
type CompiledTool struct {
	def    Tool
	tree   *value // the argsSchema, for describing what was expected
	schema *jsonschema.Schema
}

// NewRegistry compiles the tools of skills that ValidateSkills (or
// ParseManifest) accepted. An error means s was not validated first.
func NewRegistry(s Skills) (*Registry, error) {
	r := &Registry{byName: make(map[string]*CompiledTool, len(s.Tools))}
	for i, t := range s.Tools {
		if _, dup := r.byName[t.Name]; dup {
			return nil, fmt.Errorf("schema: tools[%d]: name %q is used twice; validate the skills first", i, t.Name)
		}
		ct, err := compileTool(t)
		if err != nil {
			return nil, fmt.Errorf("schema: tools[%d] (%s): %w", i, t.Name, err)
		}
		r.byName[t.Name] = ct
		r.order = append(r.order, ct)
	}
	return r, nil
}

// schemaURL is where the compiler files each tool's schema. It never leaves
// memory; it appears only inside the library's error locations.
const schemaURL = "urn:pedelec:args"

func compileTool(t Tool) (*CompiledTool, error) {
	tree, err := parseJSON(t.ArgsSchema)
	if err != nil {
		return nil, fmt.Errorf("argsSchema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseRegexpEngine(func(s string) (jsonschema.Regexp, error) {
		re, err := compilePattern(s)
		if err != nil {
			return nil, err
		}
		return sourceRegexp{re, s}, nil
	})
	doc := tree.toAny()
	dedupeRequired(doc)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	return &CompiledTool{def: t, tree: tree, schema: sch}, nil
}

// sourceRegexp prints as the pattern the developer wrote, not its RE2
// translation, so a violation quotes the schema as the agent read it.
type sourceRegexp struct {
	*regexp.Regexp
	source string
}

func (r sourceRegexp) String() string { return r.source }

// dedupeRequired drops repeated names from every "required": harmless in
// a definition (a name required twice is required once), but the draft
// 2020-12 meta-schema the library checks schemas against refuses them.
func dedupeRequired(node any) {
	n, ok := node.(map[string]any)
	if !ok {
		return
	}
	if req, ok := n["required"].([]any); ok {
		seen := map[any]bool{}
		out := req[:0:0]
		for _, r := range req {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
		n["required"] = out
	}
	if props, ok := n["properties"].(map[string]any); ok {
		for _, p := range props {
			dedupeRequired(p)
		}
	}
	dedupeRequired(n["items"])
	if options, ok := n["oneOf"].([]any); ok {
		for _, o := range options {
			dedupeRequired(o)
		}
	}
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
		out[i] = t.def
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
func (c *CompiledTool) Def() Tool { return c.def }

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
