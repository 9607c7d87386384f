package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Every `pedelec tool-call` an agent runs is a fresh process, and Go runs
// the init of every package linked into the binary in each one. These
// packages cost milliseconds of it (docs/decisions.md, "What runs before an
// agent's `pedelec tool-call` does anything") and must not creep back into
// the binary; tests may use them (the MCP go-sdk is the e2e tests' client).
var notInTheBinary = []string{
	"github.com/modelcontextprotocol/go-sdk",
	"github.com/google/jsonschema-go",
	"encoding/gob",
	"golang.org/x/oauth2",
}

func TestBinaryLeavesOutSlowInitPackages(t *testing.T) {
	for _, tags := range []string{"urfave_cli_no_docs,nethttpomithttp2", ""} { // the release build's tags, and none
		out, err := exec.Command("go", "list", "-deps", "-tags="+tags, ".").CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps -tags=%s: %v\n%s", tags, err, out)
		}
		for _, pkg := range strings.Fields(string(out)) {
			for _, bad := range notInTheBinary {
				if pkg == bad || strings.HasPrefix(pkg, bad+"/") {
					t.Errorf("the pedelec binary (tags %q) links %s; see `go mod why -m %s` and docs/decisions.md", tags, pkg, bad)
				}
			}
		}
	}
}
