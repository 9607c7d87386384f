package session

import (
	"runtime/debug"
	"sync"
	"time"
)

// memoryReleaser hands the heap's free memory back to the system once a
// burst of work that freed a lot of it is over: sessions ending
// (ended.go), or large manifests parsed. Go's runtime alone keeps freed
// memory as headroom and returns it only slowly. Each burst costs one
// forced collection, of a heap of a few MB.
type memoryReleaser struct {
	mu    sync.Mutex
	timer *time.Timer
}

// after (re)schedules the release for d from now: the last call of a
// burst decides when it runs.
func (m *memoryReleaser) after(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.timer == nil {
		m.timer = time.AfterFunc(d, debug.FreeOSMemory)
		return
	}
	m.timer.Reset(d)
}

// A page that declares hundreds of tools sends a create_session frame of a
// few hundred KB. Reading, decoding and validating it makes several times
// that in short-lived garbage: RSS after such a burst was about 2 KB per
// declared tool, six times the live heap (issue 15). It is rare (a page
// declares its tools once per load).

// largeManifest is the manifest size from which Core releases memory.
const largeManifest = 64 << 10

// manifestReleaseDelay is the quiet time after the last large manifest of
// a burst before the release: a page creating 20 sessions pays for one.
const manifestReleaseDelay = 100 * time.Millisecond
