package session

import (
	"os"
	"path/filepath"

	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Session assets (uploads and result files) are bounded on disk per
// session and across the state directory: a page wrote about 1 GB/s
// through uploads and result files until the disk was full. A write that
// would go past either quota is refused before a byte of it is written
// (ASSET_QUOTA_EXCEEDED), so nothing already there is lost and nothing is
// left half-written.

// CheckAssetQuota refuses adding more bytes to s's assets (at path) when
// that would pass the per-session or the total quota.
func (s *Session) CheckAssetQuota(path string, more int64) error {
	lim := s.table.cfg.Limits
	used, err := s.Assets().Usage()
	if err != nil {
		return wire.Errorf(wire.CodeAssetUploadFailed, "measure the session's assets: %v", err)
	}
	if lim.AssetBytesPerSession > 0 && used+more > lim.AssetBytesPerSession {
		return quotaError("max-asset-bytes-per-session", lim.AssetBytesPerSession, used, more, path,
			"this session's assets")
	}
	if lim.AssetBytesTotal > 0 {
		all := s.table.assetsUsage()
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
