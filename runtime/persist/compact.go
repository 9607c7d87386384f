package persist

import (
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A bbolt file never shrinks: pages freed by dropped events and deleted
// sessions are reused, never given back, so a database that once held a
// flood (407 MB of chat) stays that size. At start-up, before anything
// else reads it, a file that is mostly free pages is copied, live data
// only, into a fresh one that replaces it.
const (
	compactMinBytes = 8 << 20 // smaller files are not worth the copy
	compactFreeFrac = 0.5     // compact when free pages are more than this share of the file
)

// compactIfBloated compacts the database at path when it is large and
// mostly free, and says how large the file was and is. Anything it cannot do is left for open to judge: a file it
// cannot read is not its to touch.
func compactIfBloated(path string, lockWait time.Duration) (before, after int64, done bool) {
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() < compactMinBytes {
		return 0, 0, false
	}
	src, err := openBolt(path, lockWait)
	if err != nil {
		return 0, 0, false
	}
	free := src.Stats().FreePageN * src.Info().PageSize // FreeAlloc is counted only by a write
	if float64(free) < compactFreeFrac*float64(info.Size()) {
		src.Close()
		return 0, 0, false
	}
	tmp := path + ".compact"
	os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: lockWait})
	if err != nil {
		src.Close()
		return 0, 0, false
	}
	err = guard("compacting it", func() error { return bolt.Compact(dst, src, 4<<20) })
	dst.Close()
	src.Close()
	if err != nil {
		os.Remove(tmp)
		return 0, 0, false
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return 0, 0, false
	}
	small, _ := os.Stat(path)
	return info.Size(), small.Size(), true
}
