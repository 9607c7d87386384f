// Command gencodes writes what is generated from the one list of error
// codes (runtime/wire/codes.go) and exit statuses (runtime/wire/exit.go):
// docs/errors.md's two tables and the SDK's union, sdk/src/codes.gen.ts;
// and from the providers registered in runtime/provider: the SDK's
// ProviderCode and display names, sdk/src/providers.gen.ts, and
// docs/providers.md's table of providers; and from the page methods and
// events (runtime/wire/page.go): the SDK's typed method map and event
// union, sdk/src/client/protocol.gen.ts.
// Run by `go generate ./runtime/wire`; its test fails while they are stale.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	root, err := repoRoot()
	if err == nil {
		err = write(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencodes:", err)
		os.Exit(1)
	}
}

// repoRoot is the nearest directory up from here holding go.mod: go
// generate runs this in runtime/wire.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

func write(root string) error {
	files, err := render(root)
	if err != nil {
		return err
	}
	for path, data := range files {
		full := filepath.Join(root, path)
		if old, err := os.ReadFile(full); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return err
		}
		fmt.Println("gencodes: wrote", path)
	}
	return nil
}
