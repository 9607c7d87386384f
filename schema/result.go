package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// CodeToolResultInvalid is the code of a result that breaks its tool's
// outputSchema.
const CodeToolResultInvalid = "TOOL_RESULT_INVALID"

// HasOutputSchema says whether the tool declares its result's shape.
func (c *CompiledTool) HasOutputSchema() bool { return len(c.def.OutputSchema) > 0 }

// ValidateResult checks one result against the tool's outputSchema and
// returns every violation, sorted by path; none when the tool declares no
// outputSchema. The result is JSON the page's frame carried.
func (c *CompiledTool) ValidateResult(result json.RawMessage) []Violation {
	if len(c.def.InputSchema) > 0 && len(c.def.OutputSchema) > 0 {
		inst, err := parseJSON(result)
		if err != nil {
			return []Violation{{Path: RootPath, Expected: "a JSON object", Got: "text that is not JSON (" + err.Error() + ")",
				Message: "the result must be one JSON object; got text that is not JSON"}}
		}
		var out []Violation
		if outOfRange(inst, "", &out); len(out) > 0 {
			return out
		}
		return c.validateStandardResult(inst)
	}
	tree, err := c.outputTree()
	if tree == nil && err == nil {
		return nil
	}
	if err != nil {
		return []Violation{{Path: RootPath, Expected: "a result for a tool whose outputSchema Core can read", Got: "a tool whose outputSchema is not JSON",
			Message: "the tool's outputSchema cannot be read (" + err.Error() + "); the page must declare a valid schema"}}
	}
	inst, err := parseJSON(result)
	if err != nil {
		return []Violation{{Path: RootPath, Expected: "a JSON object", Got: "text that is not JSON (" + err.Error() + ")",
			Message: "the result must be one JSON object; got text that is not JSON"}}
	}
	var out []Violation
	outOfRange(inst, "", &out)
	if len(out) > 0 {
		return out
	}
	validator{tool: c, limit: MaxViolations}.check(tree, inst, "", &out)
	slices.SortStableFunc(out, func(a, b Violation) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// ResultInvalid is the TOOL_RESULT_INVALID error for a result that breaks
// its tool's outputSchema. The agent reads it as a failed call, the
// page's onError as its handler's bug; both get every violation with its
// path and what was expected.
//
// A result is the page's and may be as large as a frame (1 MiB): one that
// breaks its schema in every item had 200 000 violations, and the error
// listing them all was 31 MB, sent to the agent, to the page and into the
// session's record. So it lists the first MaxResultViolations, sorted by
// path, and counts them (details.violationCount; the check itself stops
// at MaxViolations, and the message then says "at least").
func ResultInvalid(tool string, v []Violation) error {
	shown := FirstResultViolations(v)
	parts := make([]string, len(shown))
	for i, x := range shown {
		parts[i] = x.Path + ": " + x.Message
	}
	list := strings.Join(parts, "; ")
	if more := len(v) - len(shown); more > 0 {
		list += fmt.Sprintf("; and %s more", Plural(more, "problem"))
	}
	msg := fmt.Sprintf("the page's handler for %s returned a result that breaks the tool's outputSchema (%s): %s. This is a bug in the page, not in your call: do not retry it unchanged; tell the user that %s returned a malformed result.",
		tool, problemCount(len(v)), list, tool)
	return &Error{code: CodeToolResultInvalid, message: msg, details: map[string]any{"tool": tool, "violations": shown, "violationCount": len(v)}}
}

// MaxResultViolations bounds the violations TOOL_RESULT_INVALID lists.
const MaxResultViolations = 20

// FirstResultViolations is what TOOL_RESULT_INVALID lists of v.
func FirstResultViolations(v []Violation) []Violation {
	if len(v) > MaxResultViolations {
		return v[:MaxResultViolations]
	}
	return v
}
