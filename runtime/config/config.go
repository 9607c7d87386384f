// Package config reads the user's settings file: which provider a session
// gets when the page names none and, per provider, the executable, extra
// arguments and environment, the default model and the model endpoint.
// Core and `pedelec providers` build their provider registry from it.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/pelletier/go-toml/v2"
)

// EnvPath names the environment variable that overrides DefaultPath
// (the --config flag overrides both).
const EnvPath = "PEDELEC_CONFIG"

// Config is the settings file. Every field is optional.
//
//	default_provider = "openai"
//	[providers.openai]
//	base_url = "http://127.0.0.1:11434/v1"
//	default_model = "qwen3:8b"
type Config struct {
	// DefaultProvider is the provider of a session that names none; empty
	// means the first available of provider.DefaultOrder().
	DefaultProvider string `toml:"default_provider"`
	// MaxInlineResultBytes is `pedelec serve --max-inline-result-bytes`
	// when the flag is not given: the largest tool result an agent gets
	// inline; a larger one is written to a file it reads (0: the default).
	MaxInlineResultBytes int `toml:"max_inline_result_bytes"`
	// Providers holds each provider's settings, by provider name.
	Providers map[string]provider.Settings `toml:"providers"`
	// File is the file the settings were read from; empty when there was
	// no file (the defaults apply).
	File string `toml:"-"`
}

// Known is the set of provider names a config file may configure.
func Known() []string { return provider.DefaultOrder() }

// DefaultPath is where the settings file lives when neither --config nor
// PEDELEC_CONFIG says otherwise: $XDG_CONFIG_HOME/pedelec/config.toml, else
// ~/.config/pedelec/config.toml (on Windows, the user's AppData folder).
func DefaultPath() string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "pedelec", "config.toml")
	}
	if runtime.GOOS == "windows" {
		if dir, err := os.UserConfigDir(); err == nil {
			return filepath.Join(dir, "pedelec", "config.toml")
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".config", "pedelec", "config.toml")
	}
	return filepath.Join(home, ".config", "pedelec", "config.toml")
}

// Load reads the settings file at path. A file that does not exist is not
// an error: it is the empty config, and every default applies (File is
// then empty, so a caller can say so in its logs). That holds for an
// explicit path too, so a test or a script can point PEDELEC_CONFIG at a
// file it may never write. A file that exists but cannot be read, is not
// TOML, has a key Pedelec does not know or a value of the wrong type is an
// error naming the file, the line and the key.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(path, data)
	if err != nil {
		return Config{}, err
	}
	c.File = path
	return c, nil
}

// Parse decodes and checks settings; name is used in error messages.
func Parse(name string, data []byte) (Config, error) {
	var c Config
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, decodeError(name, err)
	}
	if errs := c.check(name, data); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

// check applies the rules decoding cannot: known provider names, a usable
// base URL, well-formed environment entries.
func (c Config) check(name string, data []byte) []error {
	var errs []error
	fail := func(key, format string, args ...any) {
		where := name
		if line := lineOf(data, key); line > 0 {
			where = fmt.Sprintf("%s:%d", name, line)
		}
		errs = append(errs, fmt.Errorf("%s: %s: %s", where, key, fmt.Sprintf(format, args...)))
	}
	if c.MaxInlineResultBytes < -1 {
		fail("max_inline_result_bytes", "must be at least 1, or -1 to never write a result to a file; got %d", c.MaxInlineResultBytes)
	}
	known := Known()
	if c.DefaultProvider != "" && !slices.Contains(known, c.DefaultProvider) && !customACP(c.DefaultProvider, c.Providers[c.DefaultProvider]) {
		fail("default_provider", "%q is not a provider (known: %s)", c.DefaultProvider, strings.Join(known, ", "))
	}
	if c.Providers[c.DefaultProvider].TurnedOff() {
		fail("default_provider", "%q is turned off by [providers.%s] enabled = false", c.DefaultProvider, c.DefaultProvider)
	}
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := c.Providers[n]
		key := dottedKey("providers", n)
		if !slices.Contains(known, n) {
			if !customACP(n, s) {
				fail(key, "%q is not a provider (known: %s; an ACP agent of your own needs acp = true and its executable)", n, strings.Join(known, ", "))
				continue
			}
			if !acpName.MatchString(n) {
				fail(key, "%q: an ACP provider's name is lower-case letters, digits and '-' (a page passes it to createSession)", n)
			}
		}
		if s.IdleTimeout != "" {
			if d, err := time.ParseDuration(s.IdleTimeout); err != nil || d <= 0 {
				fail(key+".idle_timeout", "%q is not a positive duration (\"10m\", \"90s\")", s.IdleTimeout)
			}
		}
		for _, k := range s.AllowKinds {
			if !slices.Contains(acpKinds, k) {
				fail(key+".allow_kinds", "%q is not an ACP tool kind (%s)", k, strings.Join(acpKinds, ", "))
			}
		}
		if s.BaseURL != "" {
			if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				fail(key+".base_url", "%q is not an http(s) URL", s.BaseURL)
			}
		}
		envKeys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			envKeys = append(envKeys, k)
		}
		sort.Strings(envKeys)
		for _, k := range envKeys {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				fail(key+".env", "%q is not an environment variable name", k)
			}
		}
	}
	return errs
}

// customACP reports whether [providers.name] s is an ACP agent of the
// user's own: acp = true and the executable that starts it.
func customACP(name string, s provider.Settings) bool {
	return s.ACP != nil && *s.ACP && s.Executable != ""
}

// acpName is what a provider name of the user's own may look like.
var acpName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// acpKinds are ACP's tool kinds, what allow_kinds may list.
var acpKinds = []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"}

// Registry builds the providers Core offers from these settings: every
// registered provider, by rank, each given its [providers.<name>] section. A
// provider turned off (enabled = false) is listed as unavailable with the
// reason, so a page asking for it learns where it was turned off.
func (c Config) Registry() *provider.Registry {
	var ps []provider.Provider
	for _, spec := range provider.Specs() {
		s := c.Providers[spec.Name]
		p := spec.New(s)
		if s.TurnedOff() {
			p = provider.Off(spec.Name, c.offReason(spec.Name))
		}
		ps = append(ps, p)
	}
	// ACP agents of the user's own, by name.
	custom := make([]string, 0, len(c.Providers))
	for n, s := range c.Providers {
		if !slices.Contains(Known(), n) && customACP(n, s) {
			custom = append(custom, n)
		}
	}
	sort.Strings(custom)
	for _, n := range custom {
		s := c.Providers[n]
		p := provider.NewCustomACP(n, s)
		if s.TurnedOff() {
			p = provider.Off(n, c.offReason(n))
		}
		ps = append(ps, p)
	}
	return provider.NewRegistry(c.DefaultProvider, provider.WithOriginalProviders(ps...)...)
}

func (c Config) offReason(name string) string {
	where := "the settings file"
	if c.File != "" {
		where = c.File
	}
	return fmt.Sprintf("turned off: [providers.%s] enabled = false in %s", name, where)
}

// goTypeDetail is go-toml's mention of Pedelec's Go types, which says
// nothing to a person editing the file.
// Compiled on first use: every pedelec process links this package.
var goTypeDetail = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`into struct field \S+ of type (\S+)`) })

// decodeError rewrites go-toml's errors as "file:line: key: problem", one per
// line for every unknown key.
func decodeError(name string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		errs := make([]error, 0, len(strict.Errors))
		for _, e := range strict.Errors {
			row, _ := e.Position()
			errs = append(errs, fmt.Errorf("%s:%d: %s: unknown key%s (see docs/providers.md, \"Configuration\")", name, row, dottedKey(e.Key()...), keyHint(e.Key())))
		}
		return errors.Join(errs...)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		msg = goTypeDetail().ReplaceAllString(msg, "into $1")
		if key := dottedKey(de.Key()...); key != "" {
			return fmt.Errorf("%s:%d: %s: %s", name, row, key, msg)
		}
		return fmt.Errorf("%s:%d:%d: %s", name, row, col, msg)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// lineOf finds the line that defines a dotted key: a table header
// ([providers.codex], [ providers."codex" ]), a dotted key
// (providers.codex.x = ...), or a bare key inside its table. 0 when it
// cannot tell (an inline table, say).
func lineOf(data []byte, key string) int {
	key = bareKey(key)
	parts := strings.Split(key, ".")
	last := parts[len(parts)-1]
	table := strings.Join(parts[:len(parts)-1], ".")
	inTable := table == ""
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "[") {
			header, _, _ := strings.Cut(strings.TrimLeft(line, "["), "]")
			header = bareKey(header)
			if header == key || strings.HasPrefix(header, key+".") {
				return i + 1
			}
			inTable = header == table
			continue
		}
		lhs, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		lhs = bareKey(lhs)
		if lhs == key || strings.HasPrefix(lhs, key+".") || (inTable && (lhs == last || strings.HasPrefix(lhs, last+"."))) {
			return i + 1
		}
	}
	return 0
}

// dottedKey names a key in a message as TOML would write it: a part that
// is not a bare key (a newline, a dot, a blank) is quoted, so a problem
// stays on one line and names what the file says.
func dottedKey(parts ...string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p
		if p == "" || strings.TrimLeft(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
			out[i] = strconv.Quote(p)
		}
	}
	return strings.Join(out, ".")
}

// bareKey spells a TOML key as the dotted names of messages do: without
// quotes, or blanks around the dots.
func bareKey(s string) string { return keySpelling.Replace(s) }

var keySpelling = strings.NewReplacer(`"`, "", "'", "", " ", "", "\t", "")
