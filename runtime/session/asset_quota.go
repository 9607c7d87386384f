package session

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Session assets (uploads and result files) are bounded on disk per
// session and across the state directory: a page wrote about 1 GB/s
// through uploads and result files until the disk was full. A write that
// would go past either quota is refused before a byte of it is written
// (ASSET_QUOTA_EXCEEDED), so nothing already there is lost and nothing is
// left half-written.

// Bytes being written count before they are on disk: a page that took an
// upload ticket in each of several sessions first (each checked against
// nothing written yet) and uploaded on all of them afterwards went past
// the total (the hostile review of 2026-12-02). So the check at the write
// itself reserves what it lets through until the write is done
// (ReserveAssetQuota), and every check counts those reservations.

// assetReservations are the bytes of writes under way, per session and
// in all. mu is a leaf: taken under no other lock, and nothing but the
// file system is asked while it is held.
type assetReservations struct {
	mu        sync.Mutex
	total     int64
	bySession map[string]int64
}

// CheckAssetQuota refuses adding more bytes to s's assets (at path) when
// that would pass the per-session or the total quota.
func (s *Session) CheckAssetQuota(path string, more int64) error {
	r := &s.table.assetsReserved
	r.mu.Lock()
	defer r.mu.Unlock()
	return s.checkAssetQuotaLocked(path, more)
}

// ReserveAssetQuota is CheckAssetQuota for a write about to start: the
// bytes it lets through count against both quotas until release is called
// (when the write is done, whatever its outcome).
func (s *Session) ReserveAssetQuota(path string, more int64) (release func(), err error) {
	r := &s.table.assetsReserved
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := s.checkAssetQuotaLocked(path, more); err != nil {
		return nil, err
	}
	if r.bySession == nil {
		r.bySession = map[string]int64{}
	}
	r.total += more
	r.bySession[s.id] += more
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.total -= more
			if r.bySession[s.id] -= more; r.bySession[s.id] == 0 {
				delete(r.bySession, s.id)
			}
		})
	}, nil
}

func (s *Session) checkAssetQuotaLocked(path string, more int64) error {
	lim := s.table.cfg.Limits
	r := &s.table.assetsReserved
	used, err := s.Assets().Usage()
	if err != nil {
		return wire.Errorf(wire.CodeAssetUploadFailed, "measure the session's assets: %v", err)
	}
	used += r.bySession[s.id]
	if lim.AssetBytesPerSession > 0 && used+more > lim.AssetBytesPerSession {
		return quotaError("max-asset-bytes-per-session", lim.AssetBytesPerSession, used, more, path,
			"this session's assets")
	}
	if lim.AssetBytesTotal > 0 {
		all := s.table.assetsUsage() + r.total
		if all+more > lim.AssetBytesTotal {
			return quotaError("max-asset-bytes-total", lim.AssetBytesTotal, all, more, path, "the assets of all sessions")
		}
	}
	return nil
}

func quotaError(flag string, limit, used, more int64, path, what string) error {
	return wire.Errorf(wire.CodeAssetQuotaExceeded,
		"%s hold %d bytes; %d more for %s would pass the quota of %d bytes (pedelec serve --%s). Remove assets the page no longer needs, or end sessions",
		what, used, more, path, limit, flag).
		WithDetails(map[string]any{"limit": flag, "value": limit, "used": used, "got": used + more, "path": path})
}

// assetsUsage is the bytes of every session's assets in the state
// directory, those of stale directories included (they take disk too).
func (t *Table) assetsUsage() int64 {
	dirs, _ := filepath.Glob(filepath.Join(t.cfg.StateDir, "sessions", "*"))
	var total int64
	for _, d := range dirs {
		if info, err := os.Lstat(d); err != nil || !info.IsDir() {
			continue
		}
		n, _ := assets.SessionDir(d).Usage()
		total += n
	}
	return total
}
