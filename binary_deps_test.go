package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Every `pedelec tool-call` an agent runs is a fresh process, and Go runs
// the init of every package linked into the binary in each one (docs/
// decisions.md, "What runs before an agent's `pedelec tool-call` does
// anything"). The MCP go-sdk is linked on purpose (its server is
// `pedelec mcp` and Core's /mcp; "Pedelec's MCP server is the official
// SDK"), with what it needs: encoding/gob, google/jsonschema-go,
// x/oauth2, segmentio's JSON. These are what only tests and code
// generators need; each was taken out of the binary for its init and must
// not creep back in: invopop/jsonschema generates the manifest's schema
// in a test (with its ordered map, YAML library and go/parser), the
// second schema oracle checks the validator in tests. santhosh-tekuri/
// jsonschema came back for inputSchema, which it checks in Core
// (docs/decisions.md, "inputSchema is checked by santhosh-tekuri/jsonschema").
var notInTheBinary = []string{
	"github.com/invopop/jsonschema",
	"github.com/pb33f/ordered-map",
	"github.com/bahlo/generic-list-go",
	"github.com/buger/jsonparser",
	"go.yaml.in/yaml",
	"go/parser",
	"github.com/go-json-experiment/json",
	"github.com/chromedp",
	"github.com/kaptinlin/jsonschema",
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
