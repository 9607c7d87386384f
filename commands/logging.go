package commands

import (
	"io"
	"sync"

	"github.com/charmbracelet/log"
	"github.com/muesli/termenv"
	"github.com/urfave/cli/v2"
)

// logFlags are global: logs always go to stderr, stdout is the command's output.
func logFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "log level: debug, info, warn or error", EnvVars: []string{"PEDELEC_LOG_LEVEL"}},
		&cli.StringFlag{Name: "log-format", Value: "text", Usage: "log format: text or json", EnvVars: []string{"PEDELEC_LOG_FORMAT"}},
	}
}

// newLogger checks the log flags now and makes the logger when a command
// first logs: tool-call and tool-spec never do, and making one looks at
// the terminal and builds styles in every agent call (issue 15).
func newLogger(c *cli.Context, w io.Writer) (func() *log.Logger, error) {
	level, err := log.ParseLevel(c.String("log-level"))
	if err != nil {
		return nil, usageErrorf("--log-level: %v (want debug, info, warn or error)", err)
	}
	format := c.String("log-format")
	if format != "text" && format != "json" {
		return nil, usageErrorf("--log-format: %q is not text or json", format)
	}
	return sync.OnceValue(func() *log.Logger {
		profile := colourProfile(w)
		logger := log.NewWithOptions(noTerminal{w}, log.Options{Level: level, ReportTimestamp: true})
		logger.SetColorProfile(profile)
		if format == "json" {
			logger.SetFormatter(log.JSONFormatter)
		}
		return logger
	}), nil
}

// colourProfile is what the environment says w can show (a terminal or
// not, TERM, COLORTERM, NO_COLOR, CLICOLOR_FORCE), read without writing
// to the terminal.
func colourProfile(w io.Writer) termenv.Profile {
	return termenv.NewOutput(w).EnvColorProfile()
}

// noTerminal hides the file behind the log writer from charmbracelet/log:
// given a terminal, it asks it for its foreground and background colours
// (ESC ]10;? and ESC ]11;?) and waits up to 5 s for each answer, so a
// terminal that never answers (`script -qc`, IDE run panes, CI ptys)
// held `pedelec serve` back 10 s and showed the raw queries. The log's
// styles use no colour that depends on the background; the profile is
// set from the environment instead (colourProfile).
type noTerminal struct{ io.Writer }
