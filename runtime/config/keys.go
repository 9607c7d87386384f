package config

import (
	"reflect"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/suggest"
)

// keysOf lists the TOML keys a settings struct accepts, read from its tags
// so that a setting added to the struct is suggested without a second list.
func keysOf(v any) []string {
	t := reflect.TypeOf(v)
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// keyHint is ", did you mean X?" for an unknown key that looks like a typo
// of a known one at the same place in the file, else "". path is the
// unknown key's dotted parts: [key] at the top, [providers name key] in a
// provider's table.
func keyHint(path []string) string {
	var known []string
	switch {
	case len(path) == 1:
		known = keysOf(Config{})
	case len(path) == 3 && path[0] == "providers":
		known = keysOf(provider.Settings{})
	default:
		return ""
	}
	if want := suggest.Closest(path[len(path)-1], known); want != "" {
		return "; did you mean " + want + "?"
	}
	return ""
}
