package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
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
	if code != wire.ExitUsage || out != "" || !strings.Contains(errOut, "huge.json: the manifest is larger than 64 MiB") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// A manifest of many pages reads as the file holds it.
func TestReadManifestLargeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	want := bytes.Repeat([]byte(" "), 256<<10)
	copy(want, "[]")
	if err := os.WriteFile(p, want, 0o600); err != nil {
		t.Fatal(err)
	}
	name, data, err := readManifest(p, nil)
	if err != nil || name != p || data != string(want) {
		t.Fatalf("name %q, %d bytes, err %v", name, len(data), err)
	}
}
