package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// The fifth hostile review runs Core as a normal user as well as root. A
// page must be of Core's own user (the peer check), so the whole test runs
// again as that user: the test binary re-runs itself, only the test at
// hand, with review5UIDEnv set, and the pedelec binary this process built.

// review5UIDEnv is set in the child that runs a test as Core's user.
const review5UIDEnv = "PEDELEC_E2E_REVIEW5_UID"

// review5User is the normal user Core runs as: no account is needed.
const review5User = "1001"

// review5AsUser reports whether this process should run the test's body:
// it is the child already, or the test runs as root here. With asUser set
// and this process root, it runs the test again as review5User, reports
// its outcome and returns false.
func review5AsUser(t *testing.T, asUser bool) bool {
	t.Helper()
	return review5AsUserEnv(t, asUser)
}

// review5AsUserEnv is review5AsUser with entries (KEY=VALUE) for the
// child's environment.
func review5AsUserEnv(t *testing.T, asUser bool, env ...string) bool {
	t.Helper()
	if os.Getenv(review5UIDEnv) != "" || !asUser {
		return true
	}
	setpriv := asUser1001(t)
	shared := sharedDir(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	testBin := filepath.Join(shared, "e2e.test")
	copyExecutable(t, self, testBin)
	pedelec := filepath.Join(shared, "pedelec")
	copyExecutable(t, testenv.Binary(t), pedelec)
	home := filepath.Join(shared, "home")
	n, _ := strconv.Atoi(review5User)
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, n, n); err != nil {
		t.Fatal(err)
	}
	name := t.Name()
	args := append(setpriv, testBin, "-test.run", "^"+strings.ReplaceAll(name, "/", "$/^")+"$", "-test.v", "-test.timeout", "20m")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = home
	cmd.Env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + home,
		review5UIDEnv + "=" + review5User, testenv.BinaryEnv + "=" + pedelec,
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// What the child says of itself (file:line, ---), and its last lines,
	// each cut short: a failing Core's log can hold lines of megabytes.
	var said, tail []string
	br := bufio.NewReaderSize(out, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			line = strings.TrimRight(line, "\n")
			if len(line) > 1000 {
				line = line[:1000] + "…"
			}
			if strings.Contains(line, "_test.go:") || strings.Contains(line, "--- ") {
				said = append(said, line)
				continue
			}
			tail = append(tail, line)
			if len(tail) > 60 {
				tail = tail[1:]
			}
		}
		if err != nil {
			break
		}
	}
	io.Copy(io.Discard, out)
	err = cmd.Wait()
	report := strings.Join(said, "\n") + "\n…\n" + strings.Join(tail, "\n")
	switch {
	case err != nil:
		t.Fatalf("the test as uid %s failed (%v):\n%s", review5User, err, report)
	case strings.Contains(report, "--- SKIP"):
		t.Skipf("as uid %s:\n%s", review5User, report)
	case !strings.Contains(report, "--- PASS"):
		t.Fatalf("the test as uid %s did not run:\n%s", review5User, report)
	default:
		t.Logf("as uid %s:\n%s", review5User, report)
	}
	return false
}

// asUser1001 is the setpriv prefix for review5User (root only).
func asUser1001(t *testing.T) []string {
	t.Helper()
	return asUser(t, review5User)
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// coreRSS is the resident memory of the process pid, in MiB.
func coreRSS(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb >> 10
		}
	}
	t.Fatalf("no VmRSS for %d", pid)
	return 0
}

// peakRSS samples coreRSS every 100 ms until stop is closed and returns
// the highest.
func peakRSS(t *testing.T, pid int, stop <-chan struct{}) <-chan int {
	out := make(chan int, 1)
	go func() {
		peak := 0
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				for _, line := range strings.Split(string(data), "\n") {
					if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
						kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
						peak = max(peak, kb>>10)
					}
				}
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}
