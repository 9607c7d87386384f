package commands

import (
	"github.com/kaoruisaac/pedelec/runtime/agentclient"
	"github.com/urfave/cli/v2"
)

func toolSpecCommand() *cli.Command {
	return &cli.Command{
		Name:      "tool-spec",
		Usage:     "Print one tool's full definition as JSON",
		ArgsUsage: "<tool>",
		Description: `Run by the agent inside a Pedelec session before calling a tool whose
arguments it is unsure of. Prints one JSON object on stdout:

   {"ok":true,"result":{"name":...,"description":...,"argsSchema":{...},"timeoutMs":...}}   exit 0
   {"ok":false,"error":{"code":"TOOL_NOT_FOUND",...}}                                    exit 1

Exit 75 is CORE_UNREACHABLE: retry in a few seconds.

argsSchema (Pedelec's subset of JSON Schema) or inputSchema (standard JSON
Schema, draft 2020-12 or draft-07) is the schema that 'tool-call' checks the
arguments against. timeoutMs is how long Core waits for the page's answer.`,
		Flags:        []cli.Flag{threadIDFlag()},
		Action:       interruptible(runToolSpec),
		OnUsageError: markAgentUsage,
	}
}

func runToolSpec(c *cli.Context) error {
	if c.NArg() != 1 {
		return printAgentUsage(c.App.Writer, "usage: tool-spec <tool>", map[string]any{"args": c.Args().Slice()})
	}
	threadID, client, err := agentSetup(c)
	if err != nil {
		return err
	}
	res := client.ToolSpec(c.Context, threadID, c.Args().Get(0))
	agentclient.Print(c.App.Writer, res)
	return agentOutcome(res)
}
