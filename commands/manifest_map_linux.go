//go:build linux

package commands

import (
	"os"
	"syscall"
)

// mapManifest maps a regular file of size bytes read-only, its pages
// entered at once, and returns its bytes and how to unmap them; ok is false
// when the file is small or cannot be mapped, and the caller reads it.
func mapManifest(f *os.File, size int64) (data []byte, unmap func(), ok bool) {
	if size < mapMinBytes {
		return nil, nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { syscall.Munmap(data) }, true
}
