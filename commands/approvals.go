package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/urfave/cli/v2"
)

// The approvals commands (issue 22): the user's decisions from a terminal.
// They find Core like `pedelec mcp` (--state-dir, whose record of Core's
// address --core-url overrides: core_locate.go) and
// authenticate with the approver token `pedelec serve` writes there. Core
// refuses decisions from processes an agent runs; these commands refuse
// first, with a clearer message, when their own environment is an agent's.

func approvalsFlags() []cli.Flag {
	return []cli.Flag{
		coreURLFlag(),
		stateDirFlag("its approver token"),
	}
}

func approvalsCommand() *cli.Command {
	return &cli.Command{
		Name:  "approvals",
		Usage: "List approved origins and the requests waiting for your decision",
		Flags: append(approvalsFlags(), &cli.StringFlag{Name: "format", Value: "text", Usage: "text or json", EnvVars: []string{"PEDELEC_APPROVALS_FORMAT"}}),
		Action: func(c *cli.Context) error {
			var st wire.ApprovalsState
			if err := approverCall(c, "GET", "state", nil, &st); err != nil {
				return err
			}
			out := c.App.Writer
			if c.String("format") == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false) // for a reader, not an HTML page
				return enc.Encode(st)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PENDING\tKIND\tORIGIN\tASKED BY\tTOOL\tARGUMENTS\tEXPIRES")
			for _, p := range st.Pending {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.ID, p.Kind, p.Origin, orDash(p.Provider), orDash(p.Tool), argsCell(p.Args), time.Until(p.ExpiresAt).Round(time.Second))
			}
			fmt.Fprintln(tw, "\nAPPROVED ORIGIN\tSINCE\tBY")
			for _, g := range st.Origins {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", g.Origin, g.ApprovedAt.Local().Format(time.DateTime), g.By)
			}
			return tw.Flush()
		},
	}
}

func decideCommand(name, usage string, d wire.Decision) *cli.Command {
	flags := approvalsFlags()
	if d == wire.DecisionDeny {
		flags = append(flags, &cli.StringFlag{Name: "reason", Usage: "told to the page or the agent", EnvVars: []string{"PEDELEC_DENY_REASON"}})
	} else {
		flags = append(flags, &cli.BoolFlag{Name: "session", Usage: "for a call: allow this tool for the rest of its session", EnvVars: []string{"PEDELEC_APPROVE_SESSION"}})
	}
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "<origin|request-id>", Flags: flags,
		Action: func(c *cli.Context) error {
			args, reason, session, err := trailingDecideFlags(c.Args().Slice(), d)
			if err != nil {
				return err
			}
			if len(args) != 1 {
				return usageErrorf("%s needs one origin or request id (see `pedelec approvals`)", name)
			}
			if reason == "" {
				reason = c.String("reason")
			}
			dec := wire.ApprovalDecision{ID: args[0], Decision: d, Reason: reason}
			if d == wire.DecisionApprove && (c.Bool("session") || session) {
				dec.Decision = wire.DecisionAllowSession
			}
			var res struct {
				Request wire.ApprovalRequest `json:"request"`
			}
			if err := approverCall(c, "POST", "decide", dec, &res); err != nil {
				return err
			}
			what := res.Request.Origin
			if res.Request.Kind == wire.ApprovalCall {
				what = "the call of " + res.Request.Tool + " (" + res.Request.ID + ")"
			}
			fmt.Fprintf(c.App.Writer, "%s: %s\n", dec.Decision, what)
			return nil
		},
	}
}

func revokeCommand() *cli.Command {
	return &cli.Command{
		Name: "revoke", Usage: "Take an origin's approval away; its live sessions end", ArgsUsage: "<origin>", Flags: approvalsFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf("revoke needs one origin")
			}
			if err := approverCall(c, "POST", "revoke", wire.OriginRevocation{Origin: c.Args().First()}, nil); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "revoked: %s\n", c.Args().First())
			return nil
		},
	}
}

// argsMax is how much of a call's arguments the table shows; --format
// json has them whole.
const argsMax = 60

// argsCell is a call's arguments as one short line a person can read
// before approving: compact JSON, control and bidirectional formatting
// characters escaped (the page wrote them), cut with "…" past argsMax.
func argsCell(args json.RawMessage) string {
	if len(args) == 0 {
		return "-"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, args) != nil {
		buf.Reset()
		buf.Write(args)
	}
	var b strings.Builder
	n := 0
	for _, r := range buf.String() {
		if n == argsMax {
			b.WriteString("…")
			break
		}
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
		n++
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// approverCall sends one approvals API request with the approver token.
func approverCall(c *cli.Context, method, name string, body, out any) error {
	if method == "POST" {
		for _, k := range approvals.AgentEnvVars {
			if os.Getenv(k) != "" {
				return wire.Errorf(wire.CodeApproverNotAllowed, "this process runs under an agent (%s is set): only the user may decide", k)
			}
		}
	}
	at, err := findCore(c)
	if err != nil {
		return err
	}
	tokenPath := filepath.Join(c.String("state-dir"), wire.ApproverTokenFile)
	token, err := os.ReadFile(tokenPath)
	if err != nil {
		fmt.Fprintln(c.App.ErrWriter, "pedelec: "+at.notRunning(c.String("state-dir"), tokenPath, err))
		return &unreachableError{msg: "no approver token"}
	}
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(c.Context, method, strings.TrimRight(at.url, "/")+wire.ApprovalsPath+name, rd)
	if err != nil {
		return usageErrorf("--core-url: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	req.Header.Set("Content-Type", "application/json")
	// Core proves its key on the connection before the token goes out:
	// while Core is down, another user may hold its port.
	prove := &coreauth.Dialer{Expect: coreauth.FromStateDir(c.String("state-dir")), CoreURL: c.String("core-url")}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil, DialContext: prove.DialContext, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	var werr *wire.Error
	if errors.As(err, &werr) {
		return werr
	}
	if err != nil {
		fmt.Fprintln(c.App.ErrWriter, "pedelec: "+at.notAnswering(c.String("state-dir"), err))
		return &unreachableError{msg: "Core did not answer"}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if resp.StatusCode != http.StatusOK {
		var res wire.AgentResult
		if json.Unmarshal(data, &res) == nil && res.Error != nil {
			return res.Error
		}
		return fmt.Errorf("core answered %s: %s", resp.Status, strings.TrimSpace(string(data)))
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// trailingDecideFlags reads --reason and --session written after the id,
// as the docs and the log line show them (`pedelec deny <id> --reason
// ...`): the CLI library stops reading flags at the first argument.
func trailingDecideFlags(args []string, d wire.Decision) (rest []string, reason string, session bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case d == wire.DecisionDeny && (a == "--reason" || a == "-reason"):
			if i+1 >= len(args) {
				return nil, "", false, usageErrorf("--reason needs a value")
			}
			reason = args[i+1]
			i++
		case d == wire.DecisionDeny && (strings.HasPrefix(a, "--reason=") || strings.HasPrefix(a, "-reason=")):
			_, reason, _ = strings.Cut(a, "=")
		case d == wire.DecisionApprove && (a == "--session" || a == "-session"):
			session = true
		default:
			rest = append(rest, a)
		}
	}
	return rest, reason, session, nil
}
