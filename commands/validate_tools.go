package commands

import "github.com/urfave/cli/v2"

// Placeholder until the schema work lands (issue 2).
func validateToolsCommand() *cli.Command {
	return &cli.Command{Name: "validate-tools", Usage: "Check a tools manifest offline", Hidden: true}
}
