package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
	"github.com/urfave/cli/v2"
)

// maxManifestBytes bounds what validate-tools reads: far above any real
// manifest, low enough that a wrong file (a disk image, /dev/zero) fails fast.
const maxManifestBytes = 64 << 20

func validateToolsCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate-tools",
		Usage:     "Check a tools manifest offline with the rules Core applies at session creation",
		ArgsUsage: "<file|->",
		Description: `Reads a manifest, either {"guidance": ..., "tools": [...]} or a bare array of tool
definitions, from a file or from stdin (-), and reports every broken rule, one per line
as "path: message".

Run it in your app's CI so a bad tool definition fails the build instead of a user's
session: dump your tools with the SDK's toManifest(skills) to a JSON file, then run
"pedelec validate-tools tools.json". Exit status: 0 valid, 1 invalid, 2 unreadable
input or not JSON (the line and column of the syntax error are printed).

--print-schema prints the manifest's JSON Schema, for editors to check a manifest as
it is typed.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text (one problem per line) or json (a report)", EnvVars: []string{"PEDELEC_VALIDATE_FORMAT"}},
			&cli.BoolFlag{Name: "print-schema", Usage: "print the JSON Schema of the manifest format and exit", EnvVars: []string{"PEDELEC_VALIDATE_PRINT_SCHEMA"}},
		},
		Action: func(c *cli.Context) error {
			opts := validateToolsOptions{
				format:      c.String("format"),
				printSchema: c.Bool("print-schema"),
				stdin:       c.App.Reader,
				stdout:      c.App.Writer,
			}
			if c.NArg() > 1 {
				return usageErrorf("validate-tools takes one manifest file (or - for stdin), got %d arguments", c.NArg())
			}
			opts.file = c.Args().First()
			err := runValidateTools(opts)
			loggerFrom(c).Debug("validate-tools done", "file", opts.file, "err", err)
			return err
		},
	}
}

type validateToolsOptions struct {
	file        string // a path, or "-" for stdin
	format      string // text or json
	printSchema bool
	stdin       io.Reader
	stdout      io.Writer
}

// validateReport is the --format json output.
type validateReport struct {
	Valid    bool             `json:"valid"`
	Problems []schema.Problem `json:"problems"`
	Code     wire.Code        `json:"code,omitempty"`
}

func runValidateTools(o validateToolsOptions) error {
	if o.format != "text" && o.format != "json" {
		return usageErrorf("--format: %q is not text or json", o.format)
	}
	if o.printSchema {
		b, err := schema.ManifestJSONSchema()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.stdout, "%s\n", b)
		return err
	}
	if o.file == "" {
		return usageErrorf("validate-tools needs a manifest file, or - to read stdin")
	}
	name, data, err := readManifest(o.file, o.stdin)
	if err != nil {
		return err
	}
	return checkManifest(o, name, data)
}

// checkManifest checks the manifest's text and prints the outcome.
func checkManifest(o validateToolsOptions, name, data string) error {
	skills, problems, err := schema.ParseManifest(data)
	var se *schema.SyntaxError
	if errors.As(err, &se) {
		return usageErrorf("%s:%d:%d: %s (the manifest is not JSON)", name, se.Line, se.Column, se.Msg)
	} else if err != nil {
		return usageErrorf("%s: %v", name, err)
	}

	if o.format == "json" {
		report := validateReport{Valid: len(problems) == 0, Problems: problems}
		if report.Problems == nil {
			report.Problems = []schema.Problem{}
		}
		if !report.Valid {
			report.Code = wire.CodeInvalidInput
		}
		enc := json.NewEncoder(o.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintf(o.stdout, "%s: %s\n", p.Path, p.Message)
		}
		if len(problems) == 0 {
			fmt.Fprintf(o.stdout, "%s: valid (%s)\n", name, schema.Plural(len(skills.Tools), "tool"))
		} else {
			fmt.Fprintf(o.stdout, "%s: %s (%s)\n", name, schema.Plural(len(problems), "problem"), wire.CodeInvalidInput)
		}
	}
	if len(problems) > 0 {
		return failed(fmt.Sprintf("%s: %s", name, schema.Plural(len(problems), "problem")))
	}
	return nil
}

// readManifest reads the file, or stdin for "-", and returns the name to
// print in messages. The text is read into a string, the form the check
// takes: read as bytes, it would be copied whole once more.
func readManifest(file string, stdin io.Reader) (name, data string, err error) {
	name, r := file, stdin
	size := 0 // what the file says it holds: the buffer's first size
	if file == "-" {
		name = "<stdin>"
	} else {
		f, err := os.Open(file)
		if err != nil {
			return name, "", usageErrorf("cannot read the manifest: %v", err)
		}
		defer f.Close()
		r = f
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if st.Size() > maxManifestBytes {
				return name, "", usageErrorf("%s: the manifest is larger than %d MiB", name, maxManifestBytes>>20)
			}
			size = int(st.Size())
		}
	}
	// Read into a buffer of the file's size, not one grown from 512 bytes
	// by doubling (io.ReadAll): for a large manifest that was its size
	// again in copies and fresh pages, in a process whose cost is mostly
	// page faults (docs/performance.md). A file whose size says nothing (a
	// pipe, /dev/zero) grows the buffer and fails as soon as it passes the
	// limit.
	var buf strings.Builder
	buf.Grow(size)
	_, err = io.Copy(&buf, io.LimitReader(r, maxManifestBytes+1))
	data = buf.String()
	if err != nil {
		return name, "", usageErrorf("%s: cannot read the manifest: %v", name, err)
	}
	if len(data) > maxManifestBytes {
		return name, "", usageErrorf("%s: the manifest is larger than %d MiB", name, maxManifestBytes>>20)
	}
	return name, data, nil
}
