package commands

import (
	"fmt"

	"github.com/kaoruisaac/pedelec/runtime/locate"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/urfave/cli/v2"
)

// coreURLFlag is --core-url for the companion commands. Left unset, the
// address is the one `pedelec serve` wrote into the state directory, so a
// Core started with another --addr is found without saying it twice.
func coreURLFlag() cli.Flag {
	return &cli.StringFlag{Name: "core-url", Usage: "the running Core's address (default: the one 'pedelec serve' wrote to <state-dir>/" + locate.File + ", else " + locate.DefaultURL + ")", EnvVars: []string{wire.EnvCoreURL}}
}

// stateDirFlag is --state-dir for the companion commands; what holds is
// the same directory as serve's.
func stateDirFlag(holds string) cli.Flag {
	return &cli.StringFlag{Name: "state-dir", Value: defaultStateDir(), Usage: "the state directory of 'pedelec serve', where it writes " + holds, EnvVars: []string{"PEDELEC_STATE_DIR"}}
}

// coreAt is where a companion command finds Core: url, and from, which
// says where that address came from, for the message when nothing answers.
type coreAt struct{ url, from string }

// findCore is --core-url when given (flag or environment), else the state
// directory's record, else the default address.
func findCore(c *cli.Context) (coreAt, error) {
	if c.IsSet("core-url") {
		return coreAt{url: c.String("core-url"), from: "--core-url"}, nil
	}
	u, from, ok, err := locate.Read(c.String("state-dir"))
	if err != nil {
		return coreAt{}, usageErrorf("%v; pass --core-url, or restart 'pedelec serve', which rewrites it", err)
	}
	if ok {
		return coreAt{url: u, from: from}, nil
	}
	return coreAt{url: locate.DefaultURL, from: "the default address"}, nil
}

// notAnswering is what a person is told when nothing answers at Core's
// address: where that address came from, and the next step.
func (at coreAt) notAnswering(stateDir string, err error) string {
	return fmt.Sprintf("Pedelec Core at %s (%s) did not answer: %v\n"+
		"  Is 'pedelec serve' running? Start it, or, if it runs with another --state-dir, pass the same --state-dir here"+
		" (or set PEDELEC_STATE_DIR): its address is read from there. This command looked in %s.", at.url, at.from, err, stateDir)
}

// notRunning is what a person is told when the state directory has no
// token: Core writes its tokens while it runs and removes them as it stops.
func (at coreAt) notRunning(stateDir, tokenPath string, err error) string {
	last := ""
	if at.from != "the default address" && at.from != "--core-url" {
		last = " (it last ran at " + at.url + ", as " + at.from + " says)"
	}
	return fmt.Sprintf("Pedelec Core is not running for the state directory %s%s: there is no token at %s (%v).\n"+
		"  Start 'pedelec serve', or, if it runs with another --state-dir, pass the same --state-dir here (or set PEDELEC_STATE_DIR).",
		stateDir, last, tokenPath, err)
}
