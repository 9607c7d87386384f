package commands

import (
	"errors"
	"fmt"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/log"
	pruntime "github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/locate"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/sdk"
	"github.com/kaoruisaac/pedelec/web"
	"github.com/urfave/cli/v2"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "Run Core: the server pages and agents talk to",
		Description: `Runs Pedelec Core on loopback: the WebSocket the browser SDK connects to, the
endpoint the agent's 'pedelec tool-call' dials back to, the SDK module at
/sdk/pedelec.js, and a demo page at /. Sessions are kept in the state
directory's database: stop it with Ctrl-C (or restart it after a crash) and
pages resume their sessions; a turn that was running is cut off, its
provider processes killed.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:7077", Usage: "address to listen on; use port 0 for a free port", EnvVars: []string{"PEDELEC_ADDR"}},
			&cli.StringSliceFlag{Name: "allow-origin", Usage: "allow pages from this origin (repeatable; \"http://localhost:*\" patterns work)", EnvVars: []string{"PEDELEC_ALLOW_ORIGIN"}},
			&cli.StringSliceFlag{Name: "allow-host", Usage: "accept this Host name besides loopback names (only when deliberately exposing Core)", EnvVars: []string{"PEDELEC_ALLOW_HOST"}},
			&cli.StringFlag{Name: "public-url", Usage: "where your browser reaches Core through an HTTPS port forward with its own name (an editor's or Codespaces' forward, e.g. https://name-7077.app.github.dev): that name is accepted, its origin is Core's own, and the links Core gives it use it (docs/remote.md)", EnvVars: []string{"PEDELEC_PUBLIC_URL"}},
			&cli.StringFlag{Name: "state-dir", Value: defaultStateDir(), Usage: "directory for the session database and session work directories", EnvVars: []string{"PEDELEC_STATE_DIR"}},
			&cli.DurationFlag{Name: "tool-timeout", Value: pruntime.DefaultToolTimeout, Usage: "how long a tool call waits when its definition has no timeoutMs", EnvVars: []string{"PEDELEC_TOOL_TIMEOUT"}},
			&cli.DurationFlag{Name: "turn-timeout", Value: pruntime.DefaultTurnTimeout, Usage: "Core's own deadline for one provider turn", EnvVars: []string{"PEDELEC_TURN_TIMEOUT"}},
			&cli.DurationFlag{Name: "origin-approval-timeout", Value: approvals.DefaultOriginTimeout, Usage: "how long an unapproved site's createSession waits for your decision", EnvVars: []string{"PEDELEC_ORIGIN_APPROVAL_TIMEOUT"}},
			&cli.DurationFlag{Name: "origin-reject-cooldown", Value: approvals.DefaultRejectCooldown, Usage: "how long a site you rejected may not ask again (0s: at once)", EnvVars: []string{"PEDELEC_ORIGIN_REJECT_COOLDOWN"}},
			&cli.DurationFlag{Name: "resume-window", Value: pruntime.DefaultResumeWindow, Usage: "how long a disconnected session (autoEndOnDisconnect false) waits for a page to resume it", EnvVars: []string{"PEDELEC_RESUME_WINDOW"}},
			&cli.IntFlag{Name: "event-log-size", Value: pruntime.DefaultEventLogSize, Usage: "events kept per session for a page that resumes after losing its connection", EnvVars: []string{"PEDELEC_EVENT_LOG_SIZE"}},
			&cli.IntFlag{Name: "max-pending-calls", Value: pruntime.DefaultMaxPendingCalls, Usage: "tool calls that may wait at once in one session", EnvVars: []string{"PEDELEC_MAX_PENDING_CALLS"}},
			&cli.Int64Flag{Name: "max-message-bytes", Value: pruntime.DefaultMaxMessageBytes, Usage: "size limit of every WebSocket frame and agent request", EnvVars: []string{"PEDELEC_MAX_MESSAGE_BYTES"}},
			&cli.IntFlag{Name: "max-inline-result-bytes", Value: pruntime.DefaultMaxInlineResultBytes, Usage: "largest tool result an agent gets inline; a larger one is written to a file in the session's assets and the agent gets its path, size, shape and a preview (-1: never; config: max_inline_result_bytes)", EnvVars: []string{"PEDELEC_MAX_INLINE_RESULT_BYTES"}},
			&cli.DurationFlag{Name: "asset-ticket-ttl", Value: pruntime.DefaultAssetTicketTTL, Usage: "how long a page's asset upload or read ticket stays valid", EnvVars: []string{"PEDELEC_ASSET_TICKET_TTL"}},
		}, append(securityFlags(), configFlag())...),
		Action: interruptible(runServe),
	}
}

// defaultStateDir is $XDG_STATE_HOME/pedelec, else ~/.local/state/pedelec.
func defaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "pedelec")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "pedelec")
	}
	return filepath.Join(os.TempDir(), "pedelec-state")
}

// mcpCommandFor is the `pedelec mcp` line that finds this Core, for the
// demo's MCP instructions: a state directory other than the default (or
// PEDELEC_STATE_DIR's) must be named, since that is where the command
// reads Core's address and token.
func mcpCommandFor(stateDir string) string {
	if filepath.Clean(stateDir) == filepath.Clean(defaultStateDir()) || os.Getenv("PEDELEC_STATE_DIR") == stateDir {
		return "pedelec mcp"
	}
	return "pedelec mcp --state-dir " + posixQuote(stateDir)
}

// posixQuote quotes s as one POSIX shell word when it needs it.
func posixQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func runServe(c *cli.Context) error {
	logger := loggerFrom(c)
	cfg, err := loadConfig(c)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if c.Int("max-pending-calls") < 1 {
		return usageErrorf("--max-pending-calls must be at least 1")
	}
	limits, err := limitsFrom(c)
	if err != nil {
		return err
	}
	inlineResult := c.Int("max-inline-result-bytes")
	if !c.IsSet("max-inline-result-bytes") && cfg.MaxInlineResultBytes != 0 {
		inlineResult = cfg.MaxInlineResultBytes
	}
	if inlineResult == 0 || inlineResult < -1 {
		return usageErrorf("--max-inline-result-bytes must be at least 1 (or -1: never write a result to a file); got %d", inlineResult)
	}
	if _, err := pruntime.ParsePublicURL(c.String("public-url")); err != nil {
		return usageErrorf("%v", err)
	}
	// Bound first: a taken port fails before NewCore makes or opens the
	// state directory (ADDR_IN_USE says which port and what to do).
	l, url, err := pruntime.Listen(c.String("addr"))
	if err != nil {
		var werr *wire.Error
		if errors.As(err, &werr) {
			return usageErrorf("%v", werr)
		}
		return usageErrorf("listen on %s: %v", c.String("addr"), err)
	}
	providers := cfg.Registry()
	core, err := pruntime.NewCore(pruntime.Options{
		StateDir:              c.String("state-dir"),
		MCPCommand:            mcpCommandFor(c.String("state-dir")),
		ToolTimeout:           c.Duration("tool-timeout"),
		TurnTimeout:           c.Duration("turn-timeout"),
		ResumeWindow:          c.Duration("resume-window"),
		OriginApprovalTimeout: c.Duration("origin-approval-timeout"),
		OriginRejectCooldown:  rejectCooldown(c.Duration("origin-reject-cooldown")),
		EventLogSize:          c.Int("event-log-size"),
		MaxPendingCalls:       c.Int("max-pending-calls"),
		MaxMessageBytes:       c.Int64("max-message-bytes"),
		MaxInlineResultBytes:  inlineResult,
		AllowOrigins:          c.StringSlice("allow-origin"),
		AllowHosts:            c.StringSlice("allow-host"),
		PublicURL:             c.String("public-url"),
		AllowOtherUsers:       c.Bool("allow-other-users"),
		Limits:                limits,
		AssetTicketTTL:        c.Duration("asset-ticket-ttl"),
		Providers:             providers,
		Logger:                logger,
		Version:               versionString(),
	})
	if err != nil {
		l.Close()
		return err
	}
	// The companion commands (approvals, approve, mcp …) read the address
	// from the state directory: a Core on another --addr is found there.
	if err := locate.Write(c.String("state-dir"), url); err != nil {
		logger.Warn("could not record Core's address in the state directory; companion commands need --core-url", "err", err)
	}
	announceListening(logger, c.App.ErrWriter, l.Addr(), url)
	if public := core.PublicURL(); public != "" {
		logger.Info("reachable through a forward", "publicURL", public)
		fmt.Fprintf(c.App.ErrWriter, "  Through your forward: open %s/ (the console: %s%s). Pages there use new Pedelec({ url: %q }).\n\n",
			public, public, wire.ConsolePath, wsURL(public))
	}
	if ok, note := core.PeerCheckNote(); ok {
		logger.Info("peer check on", "rule", note)
	} else {
		logger.Warn("peer check off", "why", note)
	}
	// Checking providers runs `codex --version` and friends and dials model
	// servers: tens of milliseconds that need not stand between exec and the
	// first request Core answers, so it runs beside serving.
	go func() {
		for _, info := range providers.List(c.Context) {
			if info.Available {
				logger.Info("provider available", "provider", info.Name, "version", info.Version)
			} else {
				logger.Info("provider unavailable", "provider", info.Name, "reason", info.Reason)
			}
		}
	}()

	// c.Context ends on SIGINT or SIGTERM (interruptible): the orderly stop.
	return core.Serve(c.Context, l, pruntime.Assets{SDK: sdk.Dist, Web: web.Files, Console: web.Console})
}

// announceListening logs and prints where Core listens: the address it
// really bound (the URL is what providers dial, 127.0.0.1 for an
// unspecified address), and, for an address beyond loopback, what that
// exposes to the network.
func announceListening(logger *log.Logger, banner io.Writer, addr net.Addr, url string) {
	logger.Info("Pedelec Core listening", "addr", addr.String(), "url", url, "demo", url+"/", "sdk", url+"/sdk/pedelec.js", "console", url+wire.ConsolePath)
	reach := exposure(addr)
	if reach != "" {
		logger.Warn("Core listens beyond loopback", "addr", addr.String(), "reachableFrom", reach,
			"exposes", "the demo page, the SDK, the WebSocket pages start agents through, the agent and MCP endpoints",
			"guard", "the peer check refuses every peer it cannot identify (any not on loopback) unless --allow-other-users; the Host check refuses names not given with --allow-host")
	}
	fmt.Fprintf(banner, "\n  Pedelec is running on %s. Open %s/ in your browser for the demo.\n  Pages elsewhere import %s/sdk/pedelec.js (allow their origin with --allow-origin).\n", addr, url, url)
	fmt.Fprintf(banner, "  The console, what agents do and what waits for you: %s%s\n", url, wire.ConsolePath)
	if reach != "" {
		fmt.Fprintf(banner, "  WARNING: %s is reachable from %s, not only from this machine.\n", addr, reach)
	}
	fmt.Fprintln(banner)
}

// exposure names who can reach a listener on addr besides this machine:
// "" for loopback.
func exposure(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	switch {
	case !ok:
		return "whatever can reach " + addr.String()
	case tcp.IP.IsLoopback():
		return ""
	case tcp.IP.IsUnspecified():
		return "every network interface of this machine"
	}
	return "the network of " + tcp.IP.String()
}

// rejectCooldown maps the flag's 0s ("at once") to the Book's negative
// (its zero means the default).
func rejectCooldown(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// wsURL is the SDK's WebSocket URL for Core at base (https → wss).
func wsURL(base string) string {
	if rest, ok := strings.CutPrefix(base, "https://"); ok {
		return "wss://" + rest + "/ws"
	}
	return "ws://" + strings.TrimPrefix(base, "http://") + "/ws"
}
