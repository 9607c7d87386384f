package commands

import (
	"runtime/debug"
	"unsafe"
)

// mapMinBytes is the size from which validate-tools maps a manifest file
// instead of reading it. Mapping with MAP_POPULATE enters the file's pages
// in one system call, where a read into a fresh buffer takes a page fault
// per 4 KiB of buffer (about 17 µs each on a paravirtualised VM: 2 ms for
// the bench's 1,000-tool manifest); below 16 pages a read is as cheap.
const mapMinBytes = 64 << 10

// guardMapped runs check, turning a fault on data's pages (a mapped file
// truncated while it was checked) into an input error. Any other panic,
// a fault elsewhere included, is a bug and stays a panic.
func guardMapped(name string, data []byte, check func() error) (err error) {
	if len(data) == 0 {
		return check()
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if fault, ok := r.(interface{ Addr() uintptr }); ok {
			if addr := fault.Addr(); addr >= start && addr-start < uintptr(len(data)) {
				err = usageErrorf("%s: the manifest changed while it was read (%v)", name, r)
				return
			}
		}
		panic(r)
	}()
	return check()
}
