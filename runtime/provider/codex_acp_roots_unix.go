//go:build unix

package provider

import (
	"os"
	"syscall"
)

// fileID names a file whatever path reaches it (device and inode).
type fileID struct{ dev, ino uint64 }

func fileIDOf(path string) (fileID, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), st.Ino}, true //nolint:unconvert // Dev is narrower on some systems
}
