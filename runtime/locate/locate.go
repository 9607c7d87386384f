// Package locate lets the companion commands (approvals, approve, deny,
// revoke, mcp) find the Core that runs for a state directory: `pedelec
// serve` writes the address it really listens on into the state directory,
// beside its tokens, and a command that was given no --core-url reads it.
// So `pedelec serve --addr 127.0.0.1:7181` needs nothing more of them, and
// another --state-dir needs only that --state-dir.
//
// The address is no secret, but the file is written the way the secrets
// are (runtime/secretfile): never through a link planted there, replaced
// whole by a rename so a reader never sees half.
package locate

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/secretfile"
)

// File is the address's file name inside the state directory.
const File = "core-url"

// DefaultURL is Core's address when nothing says otherwise: `pedelec
// serve`'s default --addr.
const DefaultURL = "http://127.0.0.1:7077"

// maxBytes bounds what Read takes from the file: an address is short.
const maxBytes = 1 << 10

// Write records url as the address of the Core that uses stateDir.
func Write(stateDir, coreURL string) error {
	return secretfile.Write(stateDir, File, []byte(coreURL+"\n"))
}

// Read returns the address the state directory's Core wrote, and where it
// was read; ok is false when there is none (that Core never started, or is
// older), and err says what was wrong with a file that is there.
func Read(stateDir string) (coreURL, from string, ok bool, err error) {
	root, err := os.OpenRoot(stateDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", false, nil
		}
		return "", "", false, err
	}
	defer root.Close()
	from = stateDir + string(os.PathSeparator) + File
	f, err := root.Open(File)
	if errors.Is(err, fs.ErrNotExist) {
		return "", from, false, nil
	}
	if err != nil {
		return "", from, false, err
	}
	defer f.Close()
	buf := make([]byte, maxBytes+1)
	n, _ := f.Read(buf)
	if n > maxBytes {
		return "", from, false, fmt.Errorf("%s: longer than an address", from)
	}
	coreURL = strings.TrimSpace(string(buf[:n]))
	u, perr := url.Parse(coreURL)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", from, false, fmt.Errorf("%s: %q is not an http address", from, coreURL)
	}
	return coreURL, from, true, nil
}
