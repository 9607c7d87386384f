package commands

import "github.com/urfave/cli/v2"

func toolCallCommand() *cli.Command {
	return &cli.Command{Name: "tool-call", Usage: "Call one of the page's tools and print its result as JSON", Hidden: true}
}

func toolSpecCommand() *cli.Command {
	return &cli.Command{Name: "tool-spec", Usage: "Print one tool's full definition as JSON", Hidden: true}
}
