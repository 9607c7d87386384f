//go:build !unix

package runtime

// openNonBlock: opening a named pipe does not block here.
const openNonBlock = 0
