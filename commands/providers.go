package commands

import "github.com/urfave/cli/v2"

// Placeholder until provider settings land (issue 5).
func providersCommand() *cli.Command {
	return &cli.Command{Name: "providers", Usage: "List the agent providers and whether each can run here", Hidden: true}
}
