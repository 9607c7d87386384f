package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// prepareStateDir makes the state directory, or checks the one that is
// there, before Core trusts anything in it. Core keeps its sessions, their
// work directories and the token of its MCP endpoint there, and removes
// what it finds stale: a directory another user owns or may write to (one
// pre-created in /tmp, say) would let that user plant a `sessions` link
// that the first start-up empties the target of, or read the token. So
// the directory must be the user's own and writable by no one else, and
// `sessions` must be a directory in it, not a link out of it. The state
// directory's own path may go through links: the user chose it.
func prepareStateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the state directory %s: %w", dir, err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state directory %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("state directory %s is not a directory: give --state-dir a directory", dir)
	}
	if err := checkOwnDir(dir, info); err != nil {
		return err
	}
	sessions := filepath.Join(dir, "sessions")
	info, err = os.Lstat(sessions)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(sessions, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", sessions, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("state directory %s: %w", dir, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: Core never follows a link out of its state directory (it removes what it finds stale there); remove the link, or give --state-dir another directory", sessions)
	case !info.IsDir():
		return fmt.Errorf("%s is not a directory: remove it, or give --state-dir another directory", sessions)
	}
	return checkOwnDir(sessions, info)
}
