package e2e

// Issue 23: `pedelec mcp` with another --state-dir than Core's said "Core
// is not running" while Core ran. The real binary, against a real Core,
// now says that this state directory is not Core's.

import (
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func TestMCPWrongStateDirSaysSo(t *testing.T) {
	testenv.SkipShort(t, "the real binary")
	core := testenv.Serve(t, nil)
	other := t.TempDir()
	c := startPedelecMCP(t, core.URL, other)
	stderr := func() string {
		c.stderr.mu.Lock()
		defer c.stderr.mu.Unlock()
		return c.stderr.w.String()
	}
	testenv.Await(t, 10*time.Second, "pedelec mcp's complaint", func() bool {
		return strings.Contains(stderr(), "no token at")
	})
	got := stderr()
	if !strings.Contains(got, "this --state-dir is not the one that Core uses") || !strings.Contains(got, other) || strings.Contains(got, "not running") {
		t.Errorf("pedelec mcp --state-dir %s with Core running at %s says:\n%s", other, core.URL, got)
	}
	if names := c.toolNames(t); len(names) != 0 {
		t.Errorf("tools without Core's token: %v", names)
	}
}
