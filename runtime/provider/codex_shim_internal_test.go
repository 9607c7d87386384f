package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A codex on PATH that is a shell script other than npm's wrapper (asdf,
// mise, a company wrapper) runs as it is; npm's wrapper still stands for
// its native binary, and a missing one is still an error.
func TestCodexNativeTellsTheNpmWrapperFromOtherScripts(t *testing.T) {
	dir := t.TempDir()
	shim := filepath.Join(dir, "shims", "codex")
	os.MkdirAll(filepath.Dir(shim), 0o755)
	os.WriteFile(shim, []byte("#!/bin/sh\nexec \"$HOME/.asdf/installs/codex/bin/codex\" \"$@\"\n"), 0o755)
	if got, err := codexNative(shim); err != nil || got != shim {
		t.Errorf("codexNative(shim) = %q, %v; want the shim itself", got, err)
	}
	// A link to a script elsewhere (mise links its shims): the link runs.
	link := filepath.Join(dir, "codex-link")
	os.Symlink(shim, link)
	if got, err := codexNative(link); err != nil || got != link {
		t.Errorf("codexNative(link to shim) = %q, %v; want the link", got, err)
	}

	// npm's layout: node_modules/@openai/codex/bin/codex.js, no native package.
	pkg := filepath.Join(dir, "node_modules", "@openai", "codex")
	os.MkdirAll(filepath.Join(pkg, "bin"), 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@openai/codex","version":"0.171.0"}`), 0o644)
	wrapper := filepath.Join(pkg, "bin", "codex.js")
	os.WriteFile(wrapper, []byte("#!/usr/bin/env node\n"), 0o755)
	if _, err := codexNative(wrapper); err == nil || !strings.Contains(err.Error(), "native binary") {
		t.Errorf("codexNative(npm wrapper without its native binary) = %v, want the missing-binary error", err)
	}
	// A codex.js that is not the npm package's is just another script.
	other := filepath.Join(dir, "tools", "bin", "codex.js")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.WriteFile(other, []byte("#!/usr/bin/env node\n"), 0o755)
	if got, err := codexNative(other); err != nil || got != other {
		t.Errorf("codexNative(other codex.js) = %q, %v; want it as it is", got, err)
	}
}
