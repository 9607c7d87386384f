//go:build unix

package assets

import (
	"io/fs"
	"syscall"
)

// OpenNonBlock keeps an open of a FIFO from blocking: a FIFO the agent
// swaps in for a file would otherwise hang whoever opens it to read (this
// package, and Core reading a session-id file).
const OpenNonBlock = syscall.O_NONBLOCK

// linkCount is the number of names (hard links) of the file fi describes.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
