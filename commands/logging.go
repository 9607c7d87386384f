package commands

import (
	"io"

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

func newLogger(c *cli.Context, w io.Writer) (*log.Logger, error) {
	level, err := log.ParseLevel(c.String("log-level"))
	if err != nil {
		return nil, usageErrorf("--log-level: %v (want debug, info, warn or error)", err)
	}
	logger := log.NewWithOptions(w, log.Options{Level: level, ReportTimestamp: true})
	switch c.String("log-format") {
	case "text":
	case "json":
		logger.SetFormatter(log.JSONFormatter)
	default:
		return nil, usageErrorf("--log-format: %q is not text or json", c.String("log-format"))
	}
	return logger, nil
}
