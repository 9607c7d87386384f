// Package schema owns the tool manifest: the shape of skills and tool
// definitions, the rules a definition must follow, the supported subset of
// JSON Schema for arguments, and the check of an agent's arguments against
// a tool's schema. Core, validate-tools and the SDK's messages agree with it.
package schema

import "encoding/json"

// Skills is what an application declares when it creates a session.
type Skills struct {
	// Guidance is product-facing operating guidance for the agent. It is
	// application text: it never becomes a runtime rule.
	Guidance string `json:"guidance" jsonschema:"description=Operational guidance that tells the agent when and how to use the tools."`
	Tools    []Tool `json:"tools" jsonschema:"description=The tools the page implements."`
}

// Tool is one serializable tool definition. The browser handler is not part
// of it: it never leaves the page.
type Tool struct {
	Name        string          `json:"name" jsonschema:"pattern=^[a-zA-Z][a-zA-Z0-9_.-]*$,description=Stable tool name; unique within the manifest."`
	Description string          `json:"description" jsonschema:"minLength=1,description=What the tool does, what it reads or changes, its constraints and when to prefer another tool."`
	ArgsSchema  json.RawMessage `json:"argsSchema,omitempty" jsonschema:"description=Argument schema: an object schema in Pedelec's supported JSON Schema subset. A tool gives argsSchema or inputSchema."`
	// InputSchema is the arguments' schema in standard JSON Schema (draft
	// 2020-12 or draft-07), the name WebMCP and MCP give it; Core checks it
	// with its full meaning. A tool gives it or ArgsSchema, not both.
	InputSchema json.RawMessage `json:"inputSchema,omitempty" jsonschema:"description=Argument schema in standard JSON Schema (draft 2020-12 or draft-07) whose root is of type object; every keyword is checked. A tool gives argsSchema or inputSchema."`
	TimeoutMs   *int64          `json:"timeoutMs,omitempty" jsonschema:"minimum=1,maximum=9007199254740991,description=How long Core waits for the handler's result; 60000 when omitted."`
	// Annotations describe what a call does (MCP's tool annotations and
	// WebMCP's); destructiveHint or consequentialHint asks the user first.
	Annotations *Annotations `json:"annotations,omitempty" jsonschema:"description=What a call does: MCP's tool annotations and WebMCP's. destructiveHint or consequentialHint true asks the user before each call, even with readOnlyHint true; readOnlyHint alone never asks."`
	// NeedsApproval asks the user before every call, whatever the hints say.
	NeedsApproval *bool `json:"needsApproval,omitempty" jsonschema:"description=true: Core asks the user to approve each call before the page runs it."`
	// OutputSchema declares the result's shape (issue 26): Core checks
	// every result against it, and MCP clients get it in tools/list.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty" jsonschema:"description=Result schema: an object schema in Pedelec's supported JSON Schema subset (beside inputSchema: in standard JSON Schema). Core fails a call whose result breaks it (TOOL_RESULT_INVALID); MCP clients receive it as outputSchema."`
}

// Annotations are hints about a tool's behaviour. Core acts on three of
// them (AsksConsent) and passes all of them on: to MCP clients in
// tools/list, to the agent in its prompt and tool-spec. Pointers keep
// "not said" apart from false, as MCP does (its destructiveHint defaults
// to true when absent; Pedelec asks only when a page says true).
type Annotations struct {
	Title                string `json:"title,omitempty" jsonschema:"description=A human-readable name for the tool."`
	ReadOnlyHint         *bool  `json:"readOnlyHint,omitempty" jsonschema:"description=MCP/WebMCP: the tool only reads; Core never asks before calling it unless needsApproval, destructiveHint or consequentialHint is true as well."`
	DestructiveHint      *bool  `json:"destructiveHint,omitempty" jsonschema:"description=MCP: the tool may delete or overwrite; Core asks the user before each call."`
	IdempotentHint       *bool  `json:"idempotentHint,omitempty" jsonschema:"description=MCP: calling it again with the same arguments has no further effect."`
	OpenWorldHint        *bool  `json:"openWorldHint,omitempty" jsonschema:"description=MCP: the tool reaches beyond the page (the network, other people)."`
	ConsequentialHint    *bool  `json:"consequentialHint,omitempty" jsonschema:"description=WebMCP: the call has consequences for the user (pays, sends, publishes); Core asks the user before each call."`
	UntrustedContentHint *bool  `json:"untrustedContentHint,omitempty" jsonschema:"description=WebMCP: the result carries content the page does not vouch for."`
}

// AsksConsent is the consent rule (issue 22): a call waits for the user
// when the definition sets needsApproval, or says it is destructive or
// consequential. readOnlyHint spares a tool only when it claims nothing
// else: a definition that says both "read-only" and "destructive" is not
// trusted on the comfortable half, so destructive wins.
func (t Tool) AsksConsent() bool {
	if t.NeedsApproval != nil && *t.NeedsApproval {
		return true
	}
	a := t.Annotations
	if a == nil {
		return false
	}
	return isTrue(a.DestructiveHint) || isTrue(a.ConsequentialHint)
}

// Hints names a definition's annotations that are true, in the console's
// words, and whether its calls ask the user first.
func (t Tool) Hints() []string {
	var out []string
	if a := t.Annotations; a != nil {
		for _, h := range []struct {
			on   *bool
			name string
		}{{a.ReadOnlyHint, "read-only"}, {a.DestructiveHint, "destructive"}, {a.IdempotentHint, "idempotent"},
			{a.OpenWorldHint, "open-world"}, {a.ConsequentialHint, "consequential"}, {a.UntrustedContentHint, "untrusted content"}} {
			if isTrue(h.on) {
				out = append(out, h.name)
			}
		}
	}
	if t.AsksConsent() {
		out = append(out, "asks consent")
	}
	return out
}

func isTrue(b *bool) bool { return b != nil && *b }

// ArgumentsSchema is the arguments' JSON Schema, whichever field gives it:
// what MCP's tools/list calls inputSchema and a provider's tool list sends.
func (t Tool) ArgumentsSchema() json.RawMessage {
	if len(t.InputSchema) > 0 {
		return t.InputSchema
	}
	return t.ArgsSchema
}

// DefaultTimeoutMs is Core's tool timeout when a definition has none.
const DefaultTimeoutMs = 60_000

// UntrustedContent is WebMCP's untrustedContentHint: the tool's results
// carry content its page does not vouch for, and reach the agent marked
// as such (tool-call's untrustedContent, the MCP result's _meta).
func (t Tool) UntrustedContent() bool {
	return t.Annotations != nil && isTrue(t.Annotations.UntrustedContentHint)
}
