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
	ArgsSchema  json.RawMessage `json:"argsSchema" jsonschema:"description=Argument schema: an object schema in Pedelec's supported JSON Schema subset."`
	TimeoutMs   *int64          `json:"timeoutMs,omitempty" jsonschema:"minimum=1,maximum=9007199254740991,description=How long Core waits for the handler's result; 60000 when omitted."`
}

// DefaultTimeoutMs is Core's tool timeout when a definition has none.
const DefaultTimeoutMs = 60_000
