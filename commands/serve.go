package commands

import "github.com/urfave/cli/v2"

func serveCommand() *cli.Command {
	return &cli.Command{Name: "serve", Usage: "Run Core: the server pages and agents talk to", Hidden: true}
}
