package commands

import (
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/urfave/cli/v2"
)

// threadIDFlag is accepted both before the subcommand (the seeds' form,
// `pedelec-cli --thread-id T tool-call ...`) and after it.
func threadIDFlag() cli.Flag {
	return &cli.StringFlag{Name: "thread-id", Usage: "the Pedelec session the agent works in", EnvVars: []string{wire.EnvThreadID}}
}
