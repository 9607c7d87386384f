package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/config"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/urfave/cli/v2"
)

// providersOptions is everything runProviders needs.
type providersOptions struct {
	Config config.Config
	Format string // "text" or "json"
	Out    io.Writer
}

func providersCommand() *cli.Command {
	return &cli.Command{
		Name:  "providers",
		Usage: "List the agent providers and whether each can run here",
		Description: "Checks each provider as list_providers does: found or not, version, path, default model, " +
			"and the reason when it cannot run. The settings file (--config) chooses executables, models and endpoints.",
		Flags: []cli.Flag{
			configFlag(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text or json", EnvVars: []string{"PEDELEC_PROVIDERS_FORMAT"}},
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if format != "text" && format != "json" {
				return usageErrorf("--format: %q is not text or json", format)
			}
			cfg, err := loadConfig(c)
			if err != nil {
				return err
			}
			return runProviders(c.Context, providersOptions{Config: cfg, Format: format, Out: c.App.Writer})
		},
	}
}

// runProviders checks every provider and prints the list. It never fails
// because a provider is missing: that is what it reports.
func runProviders(ctx context.Context, opts providersOptions) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	reg := opts.Config.Registry()
	result := wire.ListProvidersResult{Providers: reg.List(ctx), DefaultProvider: reg.Default(ctx)}
	if opts.Format == "json" {
		enc := json.NewEncoder(opts.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // for a reader, not an HTML page
		return enc.Encode(result)
	}
	tw := tabwriter.NewWriter(opts.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tAVAILABLE\tVERSION\tDEFAULT MODEL\tPATH\tREASON")
	for _, p := range result.Providers {
		available := "no"
		if p.Available {
			available = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Name, available, dash(p.Version), dash(p.DefaultModel), dash(p.Path), dash(p.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	from := "first available"
	if opts.Config.DefaultProvider != "" {
		from = "default_provider in " + opts.Config.File
	}
	_, err := fmt.Fprintf(opts.Out, "\nDefault provider: %s (%s)\n", result.DefaultProvider, from)
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
