package commands

import (
	"io"
	"sync"

	"github.com/charmbracelet/log"
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
		logger := log.NewWithOptions(w, log.Options{Level: level, ReportTimestamp: true})
		if format == "json" {
			logger.SetFormatter(log.JSONFormatter)
		}
		return logger
	}), nil
}
