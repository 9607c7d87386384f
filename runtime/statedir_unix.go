//go:build unix

package runtime

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkOwnDir refuses a directory of the state directory that another user
// owns or that others may write to.
func checkOwnDir(dir string, info fs.FileInfo) error {
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("state directory %s belongs to uid %d, not to this user (uid %d): Core keeps its sessions and its token there, so it uses only a directory of its own; give --state-dir another directory", dir, st.Uid, os.Geteuid())
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("state directory %s can be written by other users (mode %04o): run `chmod go-w %s`, or give --state-dir another directory", dir, perm, dir)
	}
	return nil
}
