// Package commands is the pedelec command line: one file per subcommand,
// each thin, calling into runtime/, schema/ and prompt/. Exit codes are
// decided in exit.go and nowhere else.
package commands

import (
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/prompt"
	"github.com/urfave/cli/v2"
)

// AgentAlias is the name Core links the binary under on a provider's PATH,
// so the seeds' `pedelec-cli --thread-id <id> tool-call ...` works verbatim.
const AgentAlias = prompt.CLI

// NewApp builds the command tree. Tests call it with their own streams.
func NewApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "pedelec",
		Usage:   "Let a local AI agent call the tools a web page declares",
		Version: versionString(),
		// Any non-zero time: left zero, urfave/cli stats os.Args[0] in every
		// process (an agent's every tool call) to fill a field nothing prints.
		Compiled:             time.Unix(1, 0),
		EnableBashCompletion: true,
		Suggest:              true,
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		// main owns the exit code: commands return errors, exit.go maps them.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   markUsage,
		Flags:          append(logFlags(), threadIDFlag()),
		Before: func(c *cli.Context) error {
			logger, err := newLogger(c, stderr)
			if err != nil {
				return err
			}
			c.App.Metadata = map[string]any{loggerKey: logger}
			return nil
		},
		Commands: []*cli.Command{
			serveCommand(),
			toolSpecCommand(),
			toolCallCommand(),
			validateToolsCommand(),
			providersCommand(),
			scriptAgentCommand(),
			mcpCommand(),
			approvalsCommand(),
			decideCommand("approve", "Approve an origin or a pending call (`pedelec approvals` lists them)", wire.DecisionApprove),
			decideCommand("deny", "Deny an origin's request or a pending call", wire.DecisionDeny),
			revokeCommand(),
		},
	}
	onUsageErrorEverywhere(app.Commands)
	return app
}

// Main runs the CLI and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		// Invoked as pedelec-cli: same binary, same behaviour, its own name in help.
		name := strings.TrimSuffix(filepath.Base(args[0]), ".exe")
		args = append([]string{name}, args[1:]...)
	}
	app := NewApp(stdin, stdout, stderr)
	if len(args) > 0 && args[0] == AgentAlias {
		app.Name = AgentAlias
	}
	return exitCode(app.Run(args), stderr)
}

const loggerKey = "logger"

// loggerFrom returns the logger Before set up, made on first use.
func loggerFrom(c *cli.Context) *log.Logger {
	if l, ok := c.App.Metadata[loggerKey].(func() *log.Logger); ok {
		return l()
	}
	return log.New(io.Discard)
}
