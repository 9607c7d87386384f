package runtime

import (
	"runtime/debug"
	"sync"
	"time"
)

// A page that declares hundreds of tools sends a create_session frame of a
// few hundred KB. Reading, decoding and validating it makes several times
// that in short-lived garbage, and the Go runtime keeps the freed memory as
// heap headroom, returning it to the system only slowly: RSS after such a
// burst was about 2 KB per declared tool, six times the live heap (issue
// 15). So after a large manifest Core collects and hands the memory back
// once the burst is over. It is rare (a page declares its tools once per
// load) and costs one collection of a heap of a few MB.

// largeManifest is the manifest size from which Core releases memory.
const largeManifest = 64 << 10

// memoryReleaseDelay is the quiet time after the last large manifest of a
// burst before the release: a page creating 20 sessions pays for one.
const memoryReleaseDelay = 100 * time.Millisecond

type memoryReleaser struct {
	mu    sync.Mutex
	timer *time.Timer
}

// after (re)schedules the release for memoryReleaseDelay from now.
func (m *memoryReleaser) after(manifestBytes int) {
	if manifestBytes < largeManifest {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.timer == nil {
		m.timer = time.AfterFunc(memoryReleaseDelay, debug.FreeOSMemory)
		return
	}
	m.timer.Reset(memoryReleaseDelay)
}
