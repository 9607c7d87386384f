package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file larger than the limit is refused, though its size sizes the
// buffer (a sparse file: the disk holds nothing).
func TestValidateToolsFileOverLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	p := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxManifestBytes + 10); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, out, errOut := validateCLI(t, "", p)
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "huge.json: the manifest is larger than 64 MiB") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
