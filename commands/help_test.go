package commands

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
	"unicode"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/urfave/cli/v2"
)

// helpCommand is one node of the command tree with its full usage path.
type helpCommand struct {
	path []string // e.g. ["pedelec", "providers", "list"]
	cmd  *cli.Command
}

// walkCommands lists every command under app, hidden ones included: an
// agent reads help for those too. urfave's own help command is skipped.
func walkCommands(app *cli.App) []helpCommand {
	var out []helpCommand
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			p := append(append([]string{}, path...), c.Name)
			out = append(out, helpCommand{p, c})
			walk(p, c.Subcommands)
		}
	}
	walk([]string{app.Name}, app.Commands)
	return out
}

// imperative tells whether a Usage's first word reads as an order ("List",
// not "Lists", "Listing" or "Listed"); the exceptions end in s themselves.
func imperative(word string) bool {
	w := strings.ToLower(word)
	switch w {
	case "access", "address", "bypass", "process", "pass", "press", "express", "focus":
		return true
	}
	return !(strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed"))
}

func TestHelpTextLint(t *testing.T) {
	app := NewApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	cmds := walkCommands(app)
	if len(cmds) < 4 {
		t.Fatalf("found %d commands, the tree walk is broken", len(cmds))
	}
	checkFlags(t, app.Name, app.Flags)
	for _, hc := range cmds {
		name := strings.Join(hc.path, " ")
		u := hc.cmd.Usage
		switch {
		case u == "":
			t.Errorf("%s: no Usage", name)
			continue
		case !unicode.IsUpper([]rune(u)[0]):
			t.Errorf("%s: Usage %q does not start with a capital letter", name, u)
		case strings.HasSuffix(u, "."):
			t.Errorf("%s: Usage %q ends with a period", name, u)
		case !imperative(strings.Fields(u)[0]):
			t.Errorf("%s: Usage %q is not imperative (write %q, not %q)", name, u, "Check ...", "Checks ...")
		}
		checkFlags(t, name, hc.cmd.Flags)
	}
}

// knownMissingEnv lists flags allowed to break the env-var rule. It is
// empty and should stay so: every flag gets a PEDELEC_* fallback.
var knownMissingEnv = map[string]bool{}

// checkFlags: every flag says what it does and has a PEDELEC_* fallback,
// shown in its help (urfave prints EnvVars as [$PEDELEC_...]).
func checkFlags(t *testing.T, where string, flags []cli.Flag) {
	t.Helper()
	for _, f := range flags {
		name := f.Names()[0]
		if name == "help" || name == "version" {
			continue
		}
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			t.Errorf("%s --%s: cannot read its usage", where, name)
			continue
		}
		if df.GetUsage() == "" {
			t.Errorf("%s --%s: no Usage", where, name)
		}
		env := df.GetEnvVars()
		if len(env) == 0 && knownMissingEnv[where+" --"+name] {
			t.Logf("%s --%s: no EnvVars yet (known, see knownMissingEnv)", where, name)
		} else if len(env) == 0 {
			t.Errorf("%s --%s: no EnvVars; add a PEDELEC_* fallback", where, name)
		}
		for _, e := range env {
			if !strings.HasPrefix(e, "PEDELEC_") {
				t.Errorf("%s --%s: env var %s does not start with PEDELEC_", where, name, e)
			}
		}
	}
}

// TestHelpRenders runs --help on every command: it exits 0 and shows the
// full usage path, so a reader can copy the command line from it.
func TestHelpRenders(t *testing.T) {
	app := NewApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	for _, hc := range append([]helpCommand{{path: []string{app.Name}}}, walkCommands(app)...) {
		name := strings.Join(hc.path, " ")
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(append(append([]string{}, hc.path...), "--help"), strings.NewReader(""), &out, &errOut)
			if code != wire.ExitOK {
				t.Errorf("exit %d, stderr %q", code, errOut.String())
			}
			if !strings.Contains(out.String(), name) {
				t.Errorf("help does not show %q:\n%s", name, out.String())
			}
			if hc.cmd != nil && !strings.Contains(out.String(), hc.cmd.Usage) {
				t.Errorf("help does not show the Usage %q", hc.cmd.Usage)
			}
			var flags []cli.Flag
			if hc.cmd != nil {
				flags = hc.cmd.Flags
			} else {
				flags = app.Flags
			}
			for _, f := range flags {
				if df, ok := f.(cli.DocGenerationFlag); ok {
					for _, e := range df.GetEnvVars() {
						if !strings.Contains(out.String(), "$"+e) {
							t.Errorf("help does not show the env var %s of --%s", e, f.Names()[0])
						}
					}
				}
			}
		})
	}
}

func TestVersionFlag(t *testing.T) {
	old := Version
	Version = "v1.2.3-test"
	defer func() { Version = old }()
	var out, errOut bytes.Buffer
	if code := Main([]string{"pedelec", "--version"}, strings.NewReader(""), &out, &errOut); code != wire.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if got := strings.TrimSpace(out.String()); got != "pedelec version v1.2.3-test" {
		t.Errorf("--version printed %q", got)
	}
}

func TestMistypedCommandSuggests(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Main([]string{"pedelec", "validate-tool", "tools.json"}, strings.NewReader(""), &out, &errOut)
	if code != wire.ExitUsage || !strings.Contains(errOut.String(), `Did you mean "validate-tools"?`) {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// A build from a checkout says which commit it is, not a bare "dev".
func TestVersionFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "59ba9eb0123456789abcdef"}, {Key: "vcs.modified", Value: "false"}}}, "dev (commit 59ba9eb01234)"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "59ba9eb"}, {Key: "vcs.modified", Value: "true"}}}, "dev (commit 59ba9eb, with uncommitted changes)"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	} {
		if got := fromBuildInfo(&tc.info); got != tc.want {
			t.Errorf("fromBuildInfo(%+v) = %q, want %q", tc.info.Main, got, tc.want)
		}
	}
}
