package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Limits bound what one client can make Core hold, and how long Core waits
// for a slow one. Zero values mean the defaults below; docs/security.md
// gives the reasoning for each. An honest app stays far below all of them.
type Limits struct {
	SessionsPerConnection int // live sessions one WebSocket may create or resume (16)
	Sessions              int // live sessions in this Core (32)
	ToolsPerSession       int // tools in one session's skills (64; see docs/security.md)
	ToolNameLength        int // characters in a tool name (64: OpenAI's and Anthropic's cap)
	DescriptionLength     int // characters in one tool description (4096)
	GuidanceLength        int // characters of guidance (32768)
	SchemaBytes           int // bytes of one tool's argsSchema as JSON (65536)
	SchemaDepth           int // nesting of objects and arrays in one argsSchema (32)

	// ReadTimeout bounds reading one HTTP request's body (10s): a client
	// trickling a body is cut off instead of holding a connection forever.
	ReadTimeout time.Duration
	// SessionlessTimeout closes a WebSocket that has created or resumed no
	// session this long after it opened (60s). The SDK opens its socket on
	// the first request and reopens it on the next, so a page never notices.
	SessionlessTimeout time.Duration
	// PingInterval is how often Core pings each page; a page that does not
	// answer within the same interval is gone and its socket is closed (30s).
	// A live page answers pings by itself, so an idle one is never cut.
	PingInterval time.Duration
	// RefusalLogWindow is how long repeats of one refusal are counted
	// before a summary line (1m).
	RefusalLogWindow time.Duration

	// EventLogBytes bounds the bytes of the events one session keeps for a
	// page that reconnects (in memory and in the state database; 8 MiB),
	// and EventLogTotalBytes those of all sessions together (128 MiB).
	// Past either, the session that logs drops its oldest events; a page
	// that resumes from before them is told (events_truncated).
	EventLogBytes      int64
	EventLogTotalBytes int64

	// AssetBytesPerSession bounds the bytes of one session's assets on
	// disk, uploads and result files together (1 GiB), and AssetBytesTotal
	// those of every session in the state directory (4 GiB).
	AssetBytesPerSession int64
	AssetBytesTotal      int64
}

// SetDefaults fills in the default of every limit left zero.
func (l *Limits) SetDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.SessionsPerConnection, 16)
	def(&l.Sessions, 32)
	def(&l.ToolsPerSession, 64)
	def(&l.ToolNameLength, 64)
	def(&l.DescriptionLength, 4096)
	def(&l.GuidanceLength, 32768)
	def(&l.SchemaBytes, 64<<10)
	def(&l.SchemaDepth, 32)
	defd := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defd(&l.ReadTimeout, 10*time.Second)
	defd(&l.SessionlessTimeout, 60*time.Second)
	defd(&l.PingInterval, 30*time.Second)
	defd(&l.RefusalLogWindow, time.Minute)
	def64 := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def64(&l.EventLogBytes, 8<<20)
	def64(&l.EventLogTotalBytes, 128<<20)
	def64(&l.AssetBytesPerSession, 1<<30)
	def64(&l.AssetBytesTotal, 4<<30)
}

// limitError is the refusal for one limit: the code names the limit, the
// details say which flag sets it, its value, what was asked, and where.
func limitError(code wire.Code, flag string, limit, got int, where, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return wire.Errorf(code, "%s: %d is over the limit of %d (pedelec serve --%s)", msg, got, limit, flag).
		WithDetails(map[string]any{"limit": flag, "value": limit, "got": got, "path": where})
}

// checkSkillLimits measures the skills before they are validated and
// compiled, so an oversized manifest costs Core a scan, not its memory.
// Malformed skills pass here and are reported by schema.ValidateSkills.
func (l *Limits) CheckSkillLimits(raw json.RawMessage) error {
	var skills struct {
		Guidance json.RawMessage `json:"guidance"`
		Tools    []struct {
			Name        json.RawMessage `json:"name"`
			Description json.RawMessage `json:"description"`
			ArgsSchema  json.RawMessage `json:"argsSchema"`
			InputSchema json.RawMessage `json:"inputSchema"` // argsSchema's standard-dialect form: the same limits
			// OutputSchema is held to the same limits: it is parsed and
			// walked for every result, as argsSchema is for every call.
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(raw, &skills) != nil {
		return nil
	}
	if n := len(skills.Tools); n > l.ToolsPerSession {
		return limitError(wire.CodeTooManyTools, "max-tools", l.ToolsPerSession, n, "skills.tools", "skills declare too many tools")
	}
	if n, ok := textLength(skills.Guidance); ok && n > l.GuidanceLength {
		return limitError(wire.CodeGuidanceTooLong, "max-guidance-length", l.GuidanceLength, n, "skills.guidance", "guidance is too long (characters)")
	}
	for i, t := range skills.Tools {
		at := fmt.Sprintf("skills.tools[%d]", i)
		if n, ok := textLength(t.Name); ok && n > l.ToolNameLength {
			return limitError(wire.CodeToolNameTooLong, "max-tool-name-length", l.ToolNameLength, n, at+".name", "tool name is too long (characters)")
		}
		if n, ok := textLength(t.Description); ok && n > l.DescriptionLength {
			return limitError(wire.CodeDescriptionTooLong, "max-description-length", l.DescriptionLength, n, at+".description", "tool description is too long (characters)")
		}
		if n := len(t.ArgsSchema); n > l.SchemaBytes {
			return limitError(wire.CodeSchemaTooLarge, "max-schema-bytes", l.SchemaBytes, n, at+".argsSchema", "argument schema is too large (bytes of JSON)")
		}
		if d := jsonDepth(t.ArgsSchema); d > l.SchemaDepth {
			return limitError(wire.CodeSchemaTooDeep, "max-schema-depth", l.SchemaDepth, d, at+".argsSchema", "argument schema is nested too deeply (objects and arrays)")
		}
		if n := len(t.InputSchema); n > l.SchemaBytes {
			return limitError(wire.CodeSchemaTooLarge, "max-schema-bytes", l.SchemaBytes, n, at+".inputSchema", "argument schema is too large (bytes of JSON)")
		}
		if d := jsonDepth(t.InputSchema); d > l.SchemaDepth {
			return limitError(wire.CodeSchemaTooDeep, "max-schema-depth", l.SchemaDepth, d, at+".inputSchema", "argument schema is nested too deeply (objects and arrays)")
		}
		if n := len(t.OutputSchema); n > l.SchemaBytes {
			return limitError(wire.CodeSchemaTooLarge, "max-schema-bytes", l.SchemaBytes, n, at+".outputSchema", "outputSchema is too large (bytes of JSON)")
		}
		if d := jsonDepth(t.OutputSchema); d > l.SchemaDepth {
			return limitError(wire.CodeSchemaTooDeep, "max-schema-depth", l.SchemaDepth, d, at+".outputSchema", "outputSchema is nested too deeply (objects and arrays)")
		}
	}
	return nil
}

// textLength is the length in characters of a JSON string; ok is false for
// anything else (the schema check reports the wrong type).
func textLength(raw json.RawMessage) (n int, ok bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	return utf8.RuneCountInString(s), true
}

// jsonDepth is the deepest nesting of objects and arrays in valid JSON.
func jsonDepth(raw []byte) int {
	depth, max := 0, 0
	inString, escaped := false, false
	for _, b := range bytes.TrimSpace(raw) {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			if depth > max {
				max = depth
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return max
}

// checkConnectionLimit refuses one more session (created or resumed) on
// page connection pc when it already holds the most it may.
func (c *Table) checkConnectionLimit(pc Page) error {
	l := c.cfg.Limits
	if n := pc.SessionCount(); n >= l.SessionsPerConnection {
		return limitError(wire.CodeTooManyConnectionSessions, "max-sessions-per-connection", l.SessionsPerConnection, n+1, "connection",
			"this page connection already holds %d live sessions; end one first", n)
	}
	return nil
}

// checkSessionLimitLocked, called under c.mu, refuses a new session when
// Core already runs the most it may. Ended sessions do not count.
func (c *Table) checkSessionLimitLocked() error {
	l := c.cfg.Limits
	live := 0
	for _, s := range c.sessions {
		if !s.isEnded() {
			live++
		}
	}
	if live >= l.Sessions {
		return limitError(wire.CodeTooManySessions, "max-sessions", l.Sessions, live+1, "core",
			"this Core already runs %d live sessions; end one first", live)
	}
	return nil
}

// DefaultLimits are the limits Core uses when none are given.
func DefaultLimits() Limits {
	var l Limits
	l.SetDefaults()
	return l
}
