package commands

import (
	"github.com/kaoruisaac/pedelec/runtime/config"
	"github.com/urfave/cli/v2"
)

// configFlag is the settings file flag that serve and providers share.
func configFlag() cli.Flag {
	return &cli.StringFlag{
		Name:        "config",
		Usage:       "settings file: default provider; per provider the executable, args, env, default model, base URL",
		EnvVars:     []string{config.EnvPath},
		DefaultText: config.DefaultPath(),
		TakesFile:   true,
	}
}

// loadConfig reads the file named by --config / PEDELEC_CONFIG, else the
// default path. A missing file means the defaults (logged at debug); a bad
// one is a usage error naming the file, line and key.
func loadConfig(c *cli.Context) (config.Config, error) {
	path := c.String("config")
	if path == "" {
		path = config.DefaultPath()
	}
	cfg, err := config.Load(path)
	if err != nil {
		return config.Config{}, usageErrorf("%v", err)
	}
	if cfg.File == "" {
		loggerFrom(c).Debug("no settings file; using the defaults", "path", path)
	} else {
		loggerFrom(c).Debug("settings loaded", "path", path)
	}
	return cfg, nil
}
