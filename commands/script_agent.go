package commands

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/urfave/cli/v2"
)

// script-agent is the process the `script` provider starts for each turn.
// It is an agent without a model: it acts on the user's message line by
// line, through the same shell commands a real agent runs.
func scriptAgentCommand() *cli.Command {
	return &cli.Command{
		Name:  "script-agent",
		Usage: "Act on a message line by line, as the script provider's agent",
		Description: `Started by Core for the 'script' provider, with the user's message on stdin
and the session's environment. Each line is one command:

   call <tool> <json>   run 'pedelec tool-call <tool> <json>' (json defaults to {})
   spec <tool>          run 'pedelec tool-spec <tool>'
   say <text>           reply with the text
   write <path> <text>  write text to a file, creating its parent directories
   mkdir <path>         make a directory and its parents
   symlink <to> <path>  make a symlink at path pointing to 'to'
   rm <path>            remove a file or directory tree
   ls <dir>             list a directory's entry names on one line (default .)
   history              reply with the earlier messages of this thread
   anything else        echoed back

The file commands act only inside the working directory: paths are relative
and have no '..' segment, a link's target too, and nothing is reached through
a symlink that leads out; a refused command answers '<verb> refused: ...'.

Lines that start with '&' run at the same time as the '&' lines next to them,
for testing concurrent calls. Each command's output is written to stdout as a
JSON line {"chat":"..."}, in line order.`,
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "thread", Usage: "the agent's own thread id; its messages are kept in the working directory", EnvVars: []string{"PEDELEC_SCRIPT_THREAD"}},
		},
		Action: runScriptAgent,
	}
}

func runScriptAgent(c *cli.Context) error {
	data, err := io.ReadAll(c.App.Reader)
	if err != nil {
		return err
	}
	// Everything the agent touches on disk is inside its working directory,
	// the session's work directory Core started it in.
	work, err := os.OpenRoot(".")
	if err != nil {
		return err
	}
	defer work.Close()
	out := json.NewEncoder(c.App.Writer)
	thread := scriptThread(c.String("thread"))
	earlier := thread.messages(work)
	defer thread.add(work, string(data))
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" {
			continue
		}
		if line == "history" {
			out.Encode(provider.ScriptEvent{Chat: "history: " + strings.Join(earlier, " | ") + "\n"})
			continue
		}
		if !strings.HasPrefix(line, "&") {
			out.Encode(provider.ScriptEvent{Chat: runScriptLine(work, line) + "\n"})
			continue
		}
		// A group of concurrent lines: start all, report in line order.
		var group []string
		for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "&"); i++ {
			group = append(group, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), "&")))
		}
		i--
		results := make([]string, len(group))
		var wg sync.WaitGroup
		for j, l := range group {
			wg.Add(1)
			go func() { defer wg.Done(); results[j] = runScriptLine(work, l) }()
		}
		wg.Wait()
		for _, r := range results {
			out.Encode(provider.ScriptEvent{Chat: r + "\n"})
		}
	}
	return nil
}

// runScriptLine executes one line and returns what the agent saw.
func runScriptLine(work *os.Root, line string) string {
	verb, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch verb {
	case "say":
		return rest
	case "call":
		tool, args, _ := strings.Cut(rest, " ")
		args = shellUnquote(strings.TrimSpace(args))
		if args == "" {
			args = "{}"
		}
		if len(args) > maxArgvBytes {
			return runAgentCommandStdin(args, "tool-call", tool, "-")
		}
		return runAgentCommand("tool-call", tool, args)
	case "spec":
		return runAgentCommand("tool-spec", rest)
	case "write", "mkdir", "symlink", "rm", "ls":
		return runFileVerb(work, verb, rest)
	default:
		return line
	}
}

// runAgentCommand runs the real binary found on PATH, exactly as a model's
// shell would, and returns its stdout (stderr when stdout is empty).
func runAgentCommand(args ...string) string { return runAgentCommandStdin("", args...) }

// maxArgvBytes keeps one argument under Linux's 128 KiB per-argument limit;
// larger arguments go through stdin ('-'), as an agent would pass them.
const maxArgvBytes = 64 << 10

func runAgentCommandStdin(stdin string, args ...string) string {
	cmd := exec.Command("pedelec", args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := strings.TrimSpace(stdout.String())
	if out == "" {
		out = strings.TrimSpace(stderr.String())
	}
	if out == "" && err != nil {
		out = "pedelec " + args[0] + ": " + err.Error()
	}
	return out
}

// shellUnquote takes off one pair of single quotes around the arguments, as
// a shell would: the CLI's docs write `tool-call t '{"delta": 2}'`, and a
// user who types the same line here meant the JSON inside.
func shellUnquote(args string) string {
	if len(args) >= 2 && args[0] == '\'' && args[len(args)-1] == '\'' {
		return args[1 : len(args)-1]
	}
	return args
}
