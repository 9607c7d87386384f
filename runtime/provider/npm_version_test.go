package provider

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNpmVersionReadsThePackageAboveTheLink(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "node_modules", "@google", "gemini-cli")
	bin := filepath.Join(root, "node_modules", ".bin")
	for _, d := range []string{filepath.Join(pkg, "bundle"), bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@google/gemini-cli","version":"0.61.0"}`), 0o644)
	script := filepath.Join(pkg, "bundle", "gemini.js")
	os.WriteFile(script, []byte("#!/usr/bin/env node\n"), 0o755)
	link := filepath.Join(bin, "gemini")
	if err := os.Symlink("../@google/gemini-cli/bundle/gemini.js", link); err != nil {
		t.Fatal(err)
	}
	if v := npmVersion(link, "@google/gemini-cli"); v != "0.61.0" {
		t.Errorf("version = %q, want 0.61.0", v)
	}
	// Another package's program: no version from here (--version decides).
	if v := npmVersion(link, "opencode-ai"); v != "" {
		t.Errorf("version for another package = %q, want none", v)
	}
	if v := npmVersion(filepath.Join(root, "missing"), "@google/gemini-cli"); v != "" {
		t.Errorf("version of a missing path = %q", v)
	}
}
