package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A hostile page that takes an upload ticket in each of several sessions
// first and uploads on all of them afterwards: the total quota was checked
// when each ticket was issued, with nothing written yet, so every ticket
// passed and the uploads together went past it (the hostile review of
// 2026-12-02; with the defaults, 32 sessions of 100 MiB uploads past the
// 4 GiB total). The quota holds at the upload itself.
func TestAssetQuotaHoldsForTicketsTakenAhead(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	srv := testenv.Serve(t, []string{"--allow-origin", pageOrigin, "--max-asset-bytes-total", "1000"})
	content := strings.Repeat("q", 400)
	var pages []*assetPage
	var urls []string
	for range 4 {
		a := newAssetPage(t, srv, pageOrigin)
		pages = append(pages, a)
		urls = append(urls, a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/big.bin", "sizeBytes": len(content)}).URL)
	}
	var ok, refused int
	for i, u := range urls {
		r := pages[i].do("PUT", u, pageOrigin, strings.NewReader(content), int64(len(content)))
		switch {
		case r.err == nil:
			ok++
		case r.err.Code == wire.CodeAssetQuotaExceeded:
			refused++
		default:
			t.Fatalf("upload: %v", r.err)
		}
	}
	var onDisk int64
	for _, a := range pages {
		if info, err := os.Stat(filepath.Join(a.assetsDir(), "big.bin")); err == nil {
			onDisk += info.Size()
		}
	}
	if onDisk > 1000 || ok != 2 || refused != 2 {
		t.Fatalf("4 sessions' uploads of 400 bytes on tickets taken ahead, total quota 1000: %d written, %d refused, %d bytes on disk (want 2, 2, at most 1000)", ok, refused, onDisk)
	}
}
