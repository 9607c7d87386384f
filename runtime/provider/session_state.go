package provider

import "encoding/json"

// SessionState is a provider that keeps a session's conversation in Core's
// memory (openai). Core stores what ExportSession returns in its state
// database after every change of the session, and hands it back through
// ImportSession after a restart, so the agent's next turn continues the
// same conversation.
type SessionState interface {
	ExportSession(sessionID string) json.RawMessage // nil when there is nothing
	ImportSession(sessionID string, state json.RawMessage) error
}
