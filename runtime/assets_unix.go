//go:build unix

package runtime

import "syscall"

// openNonBlock keeps an open of a FIFO from blocking.
const openNonBlock = syscall.O_NONBLOCK
