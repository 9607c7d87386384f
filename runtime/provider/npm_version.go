package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// npmVersion is the version in the package.json of the npm package pkg
// (or its platform package) that holds path (after symlinks: node_modules/.bin/x links into the
// package), or "" when path is not inside that package. Reading it takes
// a millisecond where `x --version` starts a whole Node CLI.
func npmVersion(path, pkg string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var meta struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			}
			// pkg, or its platform package (pkg-linux-x64) that holds
			// the native binary: both carry the same version.
			if json.Unmarshal(data, &meta) == nil && (meta.Name == pkg || strings.HasPrefix(meta.Name, pkg+"-")) && meta.Version != "" {
				return meta.Version
			}
		}
		if parent := filepath.Dir(dir); parent == dir || filepath.Base(dir) == "node_modules" {
			return ""
		}
	}
}
