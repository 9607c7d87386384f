package commands

import (
	"time"

	pruntime "github.com/kaoruisaac/pedelec/runtime"
	"github.com/urfave/cli/v2"
)

// securityFlags are serve's peer check and bounds; docs/security.md gives
// the reasoning behind each default.
func securityFlags() []cli.Flag {
	d := pruntime.DefaultLimits()
	return []cli.Flag{
		&cli.BoolFlag{Name: "allow-other-users", Usage: "let programs of other local users connect (by default only Core's own user may; see docs/security.md)", EnvVars: []string{"PEDELEC_ALLOW_OTHER_USERS"}},
		&cli.IntFlag{Name: "max-sessions-per-connection", Value: d.SessionsPerConnection, Usage: "live sessions one page connection may create or resume", EnvVars: []string{"PEDELEC_MAX_SESSIONS_PER_CONNECTION"}},
		&cli.IntFlag{Name: "max-sessions", Value: d.Sessions, Usage: "live sessions in this Core", EnvVars: []string{"PEDELEC_MAX_SESSIONS"}},
		&cli.IntFlag{Name: "max-tools", Value: d.ToolsPerSession, Usage: "tools one session may declare", EnvVars: []string{"PEDELEC_MAX_TOOLS"}},
		&cli.IntFlag{Name: "max-tool-name-length", Value: d.ToolNameLength, Usage: "characters in a tool name", EnvVars: []string{"PEDELEC_MAX_TOOL_NAME_LENGTH"}},
		&cli.IntFlag{Name: "max-description-length", Value: d.DescriptionLength, Usage: "characters in one tool description", EnvVars: []string{"PEDELEC_MAX_DESCRIPTION_LENGTH"}},
		&cli.IntFlag{Name: "max-guidance-length", Value: d.GuidanceLength, Usage: "characters of a session's guidance", EnvVars: []string{"PEDELEC_MAX_GUIDANCE_LENGTH"}},
		&cli.IntFlag{Name: "max-schema-bytes", Value: d.SchemaBytes, Usage: "bytes of one tool's argsSchema as JSON", EnvVars: []string{"PEDELEC_MAX_SCHEMA_BYTES"}},
		&cli.IntFlag{Name: "max-schema-depth", Value: d.SchemaDepth, Usage: "nesting of objects and arrays in one argsSchema", EnvVars: []string{"PEDELEC_MAX_SCHEMA_DEPTH"}},
		&cli.DurationFlag{Name: "read-timeout", Value: d.ReadTimeout, Usage: "how long a request body may take to arrive", EnvVars: []string{"PEDELEC_READ_TIMEOUT"}},
		&cli.DurationFlag{Name: "sessionless-timeout", Value: d.SessionlessTimeout, Usage: "close a page socket that creates or resumes no session within this time", EnvVars: []string{"PEDELEC_SESSIONLESS_TIMEOUT"}},
		&cli.DurationFlag{Name: "refusal-log-window", Value: d.RefusalLogWindow, Usage: "log the first refusal of a kind at once and repeats as one line with their count after this window", EnvVars: []string{"PEDELEC_REFUSAL_LOG_WINDOW"}},
		&cli.Int64Flag{Name: "max-event-log-bytes", Value: d.EventLogBytes, Usage: "bytes of events one session keeps for a page that reconnects (in memory and in the state database); the oldest go first", EnvVars: []string{"PEDELEC_MAX_EVENT_LOG_BYTES"}},
		&cli.Int64Flag{Name: "max-event-log-total-bytes", Value: d.EventLogTotalBytes, Usage: "bytes of events all sessions together keep; past it, the session that logs drops its oldest", EnvVars: []string{"PEDELEC_MAX_EVENT_LOG_TOTAL_BYTES"}},
		&cli.Int64Flag{Name: "max-asset-bytes-per-session", Value: d.AssetBytesPerSession, Usage: "bytes of one session's assets on disk (uploads and result files); an upload past it is refused with ASSET_QUOTA_EXCEEDED", EnvVars: []string{"PEDELEC_MAX_ASSET_BYTES_PER_SESSION"}},
		&cli.Int64Flag{Name: "max-asset-bytes-total", Value: d.AssetBytesTotal, Usage: "bytes of every session's assets on disk together", EnvVars: []string{"PEDELEC_MAX_ASSET_BYTES_TOTAL"}},
		&cli.DurationFlag{Name: "ping-interval", Value: d.PingInterval, Usage: "how often Core pings each page; one that does not answer within the next interval is closed", EnvVars: []string{"PEDELEC_PING_INTERVAL"}},
	}
}

// limitsFrom reads securityFlags; a value below 1 is a usage error.
func limitsFrom(c *cli.Context) (pruntime.Limits, error) {
	l := pruntime.Limits{
		SessionsPerConnection: c.Int("max-sessions-per-connection"),
		Sessions:              c.Int("max-sessions"),
		ToolsPerSession:       c.Int("max-tools"),
		ToolNameLength:        c.Int("max-tool-name-length"),
		DescriptionLength:     c.Int("max-description-length"),
		GuidanceLength:        c.Int("max-guidance-length"),
		SchemaBytes:           c.Int("max-schema-bytes"),
		SchemaDepth:           c.Int("max-schema-depth"),
		ReadTimeout:           c.Duration("read-timeout"),
		SessionlessTimeout:    c.Duration("sessionless-timeout"),
		PingInterval:          c.Duration("ping-interval"),
		RefusalLogWindow:      c.Duration("refusal-log-window"),
		EventLogBytes:         c.Int64("max-event-log-bytes"),
		EventLogTotalBytes:    c.Int64("max-event-log-total-bytes"),
		AssetBytesPerSession:  c.Int64("max-asset-bytes-per-session"),
		AssetBytesTotal:       c.Int64("max-asset-bytes-total"),
	}
	for _, name := range []string{"max-event-log-bytes", "max-event-log-total-bytes", "max-asset-bytes-per-session", "max-asset-bytes-total"} {
		if c.Int64(name) < 1 {
			return l, usageErrorf("--%s must be at least 1", name)
		}
	}
	for _, name := range []string{"max-sessions-per-connection", "max-sessions", "max-tools", "max-tool-name-length",
		"max-description-length", "max-guidance-length", "max-schema-bytes", "max-schema-depth"} {
		if c.Int(name) < 1 {
			return l, usageErrorf("--%s must be at least 1", name)
		}
	}
	for _, name := range []string{"read-timeout", "sessionless-timeout", "ping-interval", "refusal-log-window"} {
		if c.Duration(name) < 10*time.Millisecond {
			return l, usageErrorf("--%s must be at least 10ms", name)
		}
	}
	return l, nil
}
