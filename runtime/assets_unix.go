//go:build unix

package runtime

import (
	"io/fs"
	"syscall"
)

// openNonBlock keeps an open of a FIFO from blocking.
const openNonBlock = syscall.O_NONBLOCK

// linkCount is the number of names (hard links) of the file fi describes.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
