package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Problem is one broken definition rule. Path is relative to the skills
// object (guidance, tools[0].name, tools[1].argsSchema.properties.delta.minimum;
// RootPath for the object itself); Message says what is wrong and how to fix
// it, without repeating the path. The SDK produces the same messages, so
// they are part of the contract: schema/testdata/definitions pins them.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER: the largest
// integer a page can hold exactly, so the largest timeout both sides agree on.
const maxSafeInteger = 1<<53 - 1

// validName is the name rule, ^[a-zA-Z][a-zA-Z0-9_.-]*$, checked by hand:
// a regexp compiled at package init cost every pedelec process its time,
// and matching it cost every definition more than the loop.
func validName(name string) bool {
	if name == "" || !(name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !nameRune(rune(name[i])) {
			return false
		}
	}
	return true
}

// ValidateSkills checks a skills object {guidance, tools} exactly as it was
// received and reports every problem. The Skills it returns holds what could
// be read; use it only when there are no problems.
func ValidateSkills(raw json.RawMessage) (Skills, []Problem) {
	text := string(raw) // one copy: the check's strings are substrings of it
	if s, problems, ok := checkStreaming(text, false); ok {
		return s, problems
	}
	return validateSkillsTree(text)
}

// validateSkillsTree is ValidateSkills on the whole parsed tree: what
// checkStreaming leaves to it, and what it must agree with.
func validateSkillsTree(text string) (Skills, []Problem) {
	v, err := parseText(text)
	if err != nil {
		return Skills{}, []Problem{{Path: RootPath, Message: "skills is not valid JSON (" + err.Error() + "); send a plain JSON object {\"guidance\": ..., \"tools\": [...]}"}}
	}
	c := &checker{text: text}
	s := c.skills(v)
	return s, c.problems
}

// ParseManifest reads a manifest file: a skills object, or a bare array of
// tool definitions (then guidance is empty and paths still start at
// tools[i], so messages read the same for both forms). The error is a
// *SyntaxError when text is not JSON; everything else is a Problem. The
// text is a string, not bytes: the check's strings are substrings of it,
// so a caller that reads the file as a string (validate-tools) pays no
// copy of the whole.
func ParseManifest(text string) (Skills, []Problem, error) {
	if s, problems, ok := checkStreaming(text, true); ok {
		return s, problems, nil
	}
	return parseManifestTree(text)
}

// parseManifestTree is ParseManifest on the whole parsed tree.
func parseManifestTree(text string) (Skills, []Problem, error) {
	v, err := parseText(text)
	if err != nil {
		return Skills{}, nil, err
	}
	c := &checker{text: text}
	var s Skills
	switch v.kind {
	case kindArray:
		r := root()
		c.plain(v, r.child("tools"))
		s.Tools = c.tools(v, r.child("tools"))
	case kindObject:
		s = c.skills(v)
	default:
		c.add(root(), `a manifest must be an object {"guidance": "...", "tools": [...]} or an array of tool definitions; got %s`, v.describe())
	}
	return s, c.problems, nil
}

// checker collects problems; every check adds and carries on.
type checker struct {
	text     string // the input, for copying values out verbatim
	problems []Problem
	scratch  []byte                     // where a schema's text is compacted
	schemas  map[string]json.RawMessage // compacted texts by their input text
	patterns map[string]error           // each distinct pattern is compiled once
	// plainProblems are checkStreaming's plain-JSON problems, which come
	// before the rules' (the tree path runs plain over the whole text first).
	plainProblems []Problem
}

// patternError compiles a pattern once per check, however many tools
// repeat it, and says why it cannot run.
func (c *checker) patternError(src string) error {
	if err, ok := c.patterns[src]; ok {
		return err
	}
	if c.patterns == nil {
		c.patterns = map[string]error{}
	}
	_, err := compilePattern(src)
	c.patterns[src] = err
	return err
}

func (c *checker) add(p loc, format string, args ...any) {
	c.problems = append(c.problems, Problem{Path: p.String(), Message: fmt.Sprintf(format, args...)})
}

// plain reports what plain JSON cannot hold but the text did: repeated keys
// and numbers beyond a double. A browser's JSON.stringify never produces
// either, and each side would read them differently.
func (c *checker) plain(v *value, p loc) {
	switch v.kind {
	case kindNumber:
		if _, ok := v.number(); !ok {
			c.add(p, "the number %s is too large for a JSON number (a double); use a smaller value", v.s)
		}
	case kindArray:
		for i, e := range v.arr {
			if e.kind == kindArray || e.kind == kindObject || e.kind == kindNumber {
				c.plain(e, p.at(i))
			}
		}
	case kindObject:
		for _, k := range v.dups {
			c.add(p.child(k), "the key %s appears more than once in this object; plain JSON has each key once, so keep only one", quoteShort(k))
		}
		for _, m := range v.obj {
			// Paths are built only where a problem can be: strings,
			// booleans and null are always plain.
			if m.val.kind == kindArray || m.val.kind == kindObject || m.val.kind == kindNumber {
				c.plain(m.val, p.child(m.key))
			}
		}
	}
}

func (c *checker) skills(v *value) Skills {
	var s Skills
	top := root()
	if v.kind != kindObject {
		c.add(top, `skills must be an object {"guidance": "...", "tools": [...]}; got %s`, v.describe())
		return s
	}
	c.plain(v, top)
	sawTools := false
	for _, m := range v.obj {
		c.skillsMember(m.key, m.val, top, &s, &sawTools)
	}
	if !sawTools {
		c.missingTools(top)
	}
	return s
}

// skillsMember checks one member of the skills object.
func (c *checker) skillsMember(key string, v *value, top loc, s *Skills, sawTools *bool) {
	switch key {
	case "guidance":
		if v.kind != kindString {
			c.add(top.child("guidance"), "guidance must be a string of instructions for the agent; got %s", v.describe())
		} else {
			s.Guidance = strings.Clone(v.s) // not the whole input's copy
		}
	case "tools":
		*sawTools = true
		s.Tools = c.tools(v, top.child("tools"))
	default:
		c.add(top.child(key), "unknown field %s in skills; skills has only guidance and tools, so remove it", quoteShort(key))
	}
}

func (c *checker) missingTools(top loc) {
	c.add(top.child("tools"), `tools is missing; add "tools": [...] with the tool definitions ([] for a session without tools)`)
}

func (c *checker) tools(v *value, p loc) []Tool {
	if v.kind != kindArray {
		c.add(p, "tools must be an array of tool definitions; got %s", v.describe())
		return nil
	}
	out := make([]Tool, 0, len(v.arr))
	firstUse := map[string]int{}
	for i, e := range v.arr {
		out = append(out, c.tool(e, p.at(i), i, firstUse))
	}
	return out
}

// toolFieldHints turns a near-miss field name into the field that was meant.
var toolFieldHints = map[string]string{
	"parameters": "argsSchema", "input_schema": "inputSchema", "inputschema": "inputSchema",
	"schema": "argsSchema", "args": "argsSchema", "args_schema": "argsSchema", "argsschema": "argsSchema",
	"arguments": "argsSchema", "timeout": "timeoutMs", "timeout_ms": "timeoutMs", "timeoutMS": "timeoutMs",
	"desc": "description", "title": "description", "toolName": "name",
	"needs_approval": "needsApproval", "requiresApproval": "needsApproval", "requireApproval": "needsApproval",
	"needsConsent": "needsApproval", "approval": "needsApproval", "hints": "annotations", "annotation": "annotations",
	"output_schema": "outputSchema", "outputschema": "outputSchema", "resultSchema": "outputSchema", "returns": "outputSchema",
}

// toolFields lists a definition's fields for the unknown-field messages.
const toolFields = "name, description, argsSchema (or inputSchema), timeoutMs, annotations, needsApproval and outputSchema"

func (c *checker) tool(v *value, p loc, index int, firstUse map[string]int) Tool {
	var t Tool
	if v.kind != kindObject {
		c.add(p, "a tool definition must be an object {name, description, argsSchema, timeoutMs?}; got %s", v.describe())
		return t
	}
	var sawName, sawDescription, sawArgs, sawInput, sawStandard bool
	// Beside an inputSchema, the outputSchema is in the standard dialects too.
	_, standard := v.get("inputSchema")
	for _, m := range v.obj {
		fp := p.child(m.key)
		switch m.key {
		case "name":
			sawName = true
			t.Name = c.keep(c.name(m.val, fp, index, firstUse))
		case "description":
			sawDescription = true
			if m.val.kind != kindString {
				c.add(fp, "description must be a string; got %s", m.val.describe())
			} else if strings.TrimSpace(m.val.s) == "" {
				c.add(fp, "description is empty; say what the tool does, what it reads or changes, and when to prefer another tool")
			}
			t.Description = c.keep(m.val.s)
		case "timeoutMs":
			t.TimeoutMs = c.timeout(m.val, fp)
		case "annotations":
			t.Annotations = c.annotations(m.val, fp)
		case "needsApproval":
			t.NeedsApproval = c.flag(m.val, fp, "needsApproval", "true asks the user before every call")
		case "argsSchema":
			sawArgs = true
			c.argsSchema(m.val, fp)
			t.ArgsSchema = c.schemaText(m.val)
		case "inputSchema":
			sawStandard = true
			c.standardSchema(m.val, fp, "inputSchema", "arguments are always a JSON object")
			t.InputSchema = c.schemaText(m.val)
		case "outputSchema":
			if standard {
				c.standardSchema(m.val, fp, "outputSchema", "a declared result is a JSON object, as MCP's structuredContent is")
			} else {
				c.outputSchema(m.val, fp)
			}
			t.OutputSchema = c.schemaText(m.val)
		case "input":
			sawInput = true
			c.add(fp, `the legacy "input" shorthand is not supported; rename it to "argsSchema" and write an object schema: {"type": "object", "properties": {...}, "required": [...]}`)
		case "handler":
			c.add(fp, "handler cannot be part of the manifest: handlers stay in the browser (the SDK removes them before sending the definitions); remove it from the JSON")
		default:
			if want, ok := toolFieldHints[m.key]; ok {
				c.add(fp, "unknown field %s in a tool definition; did you mean %s? A definition has only %s", quoteShort(m.key), quoteJSON(want), toolFields)
			} else {
				c.add(fp, "unknown field %s in a tool definition; a definition has only %s, so remove it", quoteShort(m.key), toolFields)
			}
		}
	}
	if !sawName {
		c.add(p.child("name"), `name is missing; add a name such as "update_counter" (an ASCII letter, then letters, digits, _, . or -)`)
	}
	if !sawDescription {
		c.add(p.child("description"), "description is missing; say what the tool does, what it reads or changes, and when to prefer another tool")
	}
	if sawArgs && sawStandard {
		c.add(p.child("inputSchema"), `a tool gives argsSchema or inputSchema, not both; keep inputSchema for standard JSON Schema, argsSchema for Pedelec's subset`)
	}
	if !sawArgs && !sawInput && !sawStandard {
		c.add(p.child("argsSchema"), `argsSchema is missing; every tool needs an object schema, for a tool without arguments {"type": "object", "properties": {}, "required": []}`)
	}
	return t
}

func (c *checker) name(v *value, p loc, index int, firstUse map[string]int) string {
	if v.kind != kindString {
		c.add(p, `name must be a string such as "update_counter"; got %s`, v.describe())
		return ""
	}
	name := v.s
	switch {
	case name == "":
		c.add(p, `name is empty; use an ASCII letter, then letters, digits, _, . or - (for example "update_counter")`)
	case !validName(name):
		if first := name[0]; !(first >= 'a' && first <= 'z' || first >= 'A' && first <= 'Z') {
			c.add(p, `name %s must start with an ASCII letter (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$); for example "update_counter"`, quoteShort(name))
		} else {
			bad := ""
			for _, r := range name {
				if !nameRune(r) {
					bad = string(r)
					break
				}
			}
			c.add(p, `name %s contains %s, which is not allowed; use only ASCII letters, digits, _, . and - (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$)`, quoteShort(name), quoteJSON(bad))
		}
	}
	if name != "" {
		if first, ok := firstUse[name]; ok {
			c.add(p, "name %s is already used by tools[%d]; tool names must be unique, so rename one of them", quoteShort(name), first)
		} else {
			firstUse[name] = index
		}
	}
	return name
}

func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-'
}

func (c *checker) timeout(v *value, p loc) *int64 {
	const fix = "remove timeoutMs to use the default of 60000"
	switch {
	case v.kind == kindString:
		c.add(p, "timeoutMs must be a number of milliseconds, not a string; got %s (write it without quotes, or %s)", v.describe(), fix)
	case v.kind != kindNumber:
		c.add(p, "timeoutMs must be a positive integer number of milliseconds; got %s (%s)", v.describe(), fix)
	default:
		f, ok := v.number()
		switch {
		case !ok:
			// plain() has reported it.
		case f != math.Trunc(f):
			c.add(p, "timeoutMs must be a whole number of milliseconds; got %s", v.s)
		case f <= 0:
			c.add(p, "timeoutMs must be positive; got %s (%s)", v.s, fix)
		case f > maxSafeInteger:
			c.add(p, "timeoutMs %s is too large; use at most %d milliseconds", v.s, int64(maxSafeInteger))
		default:
			ms := int64(f)
			return &ms
		}
	}
	return nil
}

// annotationFields lists the annotations, for the unknown-annotation message.
const annotationFields = "title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint, consequentialHint and untrustedContentHint"

// annotations checks a definition's annotations: an object of known hints,
// each true or false, and an optional title.
func (c *checker) annotations(v *value, p loc) *Annotations {
	if v.kind != kindObject {
		c.add(p, `annotations must be an object such as {"destructiveHint": true}; got %s`, v.describe())
		return nil
	}
	a := &Annotations{}
	for _, m := range v.obj {
		fp := p.child(m.key)
		var hint **bool
		switch m.key {
		case "title":
			if m.val.kind != kindString {
				c.add(fp, "title must be a string; got %s", m.val.describe())
			} else {
				a.Title = c.keep(m.val.s)
			}
			continue
		case "readOnlyHint":
			hint = &a.ReadOnlyHint
		case "destructiveHint":
			hint = &a.DestructiveHint
		case "idempotentHint":
			hint = &a.IdempotentHint
		case "openWorldHint":
			hint = &a.OpenWorldHint
		case "consequentialHint":
			hint = &a.ConsequentialHint
		case "untrustedContentHint":
			hint = &a.UntrustedContentHint
		default:
			if want := annotationHint(m.key); want != "" {
				c.add(fp, "unknown annotation %s; did you mean %s? annotations has only %s", quoteShort(m.key), quoteJSON(want), annotationFields)
			} else {
				c.add(fp, "unknown annotation %s; annotations has only %s, so remove it", quoteShort(m.key), annotationFields)
			}
			continue
		}
		*hint = c.flag(m.val, fp, m.key, "a hint is a boolean; remove it to leave it unsaid")
	}
	return a
}

// annotationHint turns a near-miss annotation name (readOnly, destructive,
// read_only_hint) into the one that was meant, or "".
func annotationHint(key string) string {
	norm := strings.ToLower(strings.ReplaceAll(key, "_", ""))
	for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "consequentialHint", "untrustedContentHint"} {
		lk := strings.ToLower(k)
		if norm == lk || norm+"hint" == lk {
			return k
		}
	}
	return ""
}

// flag checks a boolean field; hint ends the message.
func (c *checker) flag(v *value, p loc, name, hint string) *bool {
	if v.kind != kindBool {
		c.add(p, "%s must be true or false; got %s (%s)", name, v.describe(), hint)
		return nil
	}
	b := v.b
	return &b
}

// keep copies a string of the input for a Tool: a session keeps it, not
// the whole input.
func (c *checker) keep(s string) string {
	return strings.Clone(s)
}

// schemaText is a value's JSON text from the input without insignificant
// whitespace: the definition as the page wrote it, smaller in every later
// message (tool-spec, the prompt). Repeated keys are the one case where the
// text would differ from what was checked, and they are a problem already,
// so such skills are never used.
//
// Tools of one manifest whose schemas are written alike share one copy: a
// page often declares several tools of one shape, and the schema text is
// most of what a declared tool keeps (docs/performance.md). The key is the
// input's own text, so a lookup copies nothing, and the map goes with the
// check. Nothing in Pedelec changes a schema's bytes in place, and the
// capacity is the length, so an append never writes into a shared text.
func (c *checker) schemaText(v *value) json.RawMessage {
	raw := c.text[v.start:v.end]
	if t, ok := c.schemas[raw]; ok {
		return t
	}
	c.scratch = appendCompact(c.scratch[:0], raw)
	t := bytes.Clone(c.scratch)
	t = t[:len(t):len(t)]
	if c.schemas == nil {
		c.schemas = map[string]json.RawMessage{}
	}
	c.schemas[raw] = t
	return t
}

// appendCompact appends src, JSON text the parser accepted, without the
// whitespace between its tokens: what json.Compact does, without
// re-scanning text that is known to be JSON.
func appendCompact(dst []byte, src string) []byte {
	from := 0
	for i := 0; i < len(src); i++ {
		// Skip what is kept as it is in tight loops: a schema is mostly
		// keys, words and punctuation.
		for i < len(src) && !compactStop[src[i]] {
			i++
		}
		if i == len(src) {
			break
		}
		if src[i] != '"' { // whitespace between tokens
			dst = append(dst, src[from:i]...)
			from = i + 1
			continue
		}
		for i++; i < len(src) && src[i] != '"'; i++ {
			if src[i] == '\\' {
				i++ // the escaped byte cannot end the string
			}
		}
	}
	return append(dst, src[from:]...)
}

// compactStop marks the bytes appendCompact looks at outside strings: JSON
// whitespace and the quote that opens a string.
var compactStop = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '"': true}
