package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// repoRoot is the module root: this program runs from it (scripts/bench.sh
// cds there), or from e2e/bench with `go run .`.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// releaseFlags build the way .goreleaser.yaml does, so the figures are
// those of the binary users get.
var releaseFlags = []string{"-trimpath", "-tags=urfave_cli_no_docs,nethttpomithttp2", "-ldflags=-s -w"}

func goBuild(dir, out, pkg string) error {
	cmd := exec.Command("go", append(append([]string{"build"}, releaseFlags...), "-o", out, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// helloSource is the baseline: the smallest static Go program that, like
// tool-call, prints one line of JSON.
const helloSource = `package main

import "os"

func main() { os.Stdout.WriteString("{\"ok\":true,\"result\":{}}\n") }
`

// httpFloorSource links net/http (as every binary that serves HTTP does)
// and otherwise does what hello-world does: the init any one-binary
// pedelec pays at the least, whatever it removes of its own.
const httpFloorSource = `package main

import (
	"net/http"
	"os"
)

func main() {
	if len(os.Args) > 9 { // never: keeps the server code linked
		http.ListenAndServe("127.0.0.1:0", http.NewServeMux())
	}
	os.Stdout.WriteString("{\"ok\":true,\"result\":{}}\n")
}
`

// buildProgram builds a one-file program from source into dir/name-bin.
func buildProgram(dir, name, source string) (string, error) {
	src := filepath.Join(dir, name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(source), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module "+name+"\n\ngo 1.21\n"), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name+"-bin")
	return bin, goBuild(src, bin, ".")
}

// buildBinaries builds pedelec and the hello-world baseline into dir.
func buildBinaries(dir string) (pedelec, hello string, err error) {
	pedelec = filepath.Join(dir, "pedelec")
	if err := goBuild(repoRoot(), pedelec, "."); err != nil {
		return "", "", err
	}
	if hello, err = buildProgram(dir, "hello", helloSource); err != nil {
		return "", "", err
	}
	return pedelec, hello, nil
}
