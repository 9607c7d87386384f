//go:build linux

package provider

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The warm-up endpoint is Core's listener like any other: only opencode,
// Core's own child, has any business there. Another local user's program
// that connects is closed at accept, as Core's own port does, so it can
// neither use the endpoint nor hold Core's descriptors open on it.
func TestOpencodeWarmupRefusesAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("SKIPPED: switching to another uid needs root; CI runs as root")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatal("setpriv (util-linux) is needed to run a client as another user")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl is needed to play another user's client")
	}
	url, err := warmupServer()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
		curl, "-sS", "-m", "10", "-X", "POST", "-d", `{"stream":true}`, url+"/chat/completions").CombinedOutput()
	if strings.Contains(string(out), `"content":"ok"`) {
		t.Errorf("uid 65534 got the warm-up model's answer:\n%s", out)
	}
	// Core's own user still gets it (opencode runs as Core).
	mine, err := exec.Command(curl, "-sS", "-m", "10", "-X", "POST", "-d", `{"stream":true}`, url+"/chat/completions").CombinedOutput()
	if err != nil || !strings.Contains(string(mine), `"content":"ok"`) {
		t.Errorf("Core's own user: err=%v\n%s", err, mine)
	}
}
