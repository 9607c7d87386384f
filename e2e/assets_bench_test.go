package e2e

// Memory while a large asset goes up and comes back: the real binary, one
// session, a 1, 10 and 100 MiB file uploaded with a ticket and read back
// with another, bytes streamed from and to the test without ever being
// held whole. Each size gets a fresh Core, whose peak resident set
// (VmHWM) is read from /proc before and after. Flat means the growth does
// not follow the file's size.
//
//	go test -run '^$' -bench AssetRoundTrip -benchtime 1x ./e2e

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func BenchmarkAssetRoundTrip(b *testing.B) {
	for _, mib := range []int64{1, 10, 100} {
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			size := mib << 20
			srv := testenv.Serve(b, []string{"--allow-origin", pageOrigin})
			a := newAssetPage(b, srv, pageOrigin)
			pid := srv.Cmd.Process.Pid
			before := procKiB(b, pid, "VmHWM")
			b.SetBytes(2 * size)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				a.roundTrip(b, size)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			peak := procKiB(b, pid, "VmHWM")
			b.ReportMetric(float64(before)/1024, "rss-before-MiB")
			b.ReportMetric(float64(peak)/1024, "peak-rss-MiB")
			b.ReportMetric(float64(peak-before)/1024, "growth-MiB")
			b.ReportMetric(float64(2*size*int64(b.N))/elapsed.Seconds()/(1<<20), "MiB/s")
		})
	}
}

func (a *assetPage) roundTrip(b *testing.B, size int64) {
	up := a.mustTicket(wire.MethodAssetUploadTicket, map[string]any{"path": "/bench/big.bin", "sizeBytes": size})
	src := io.LimitReader(&pattern{}, size)
	sum := sha256.New()
	r := a.do("PUT", up.URL, pageOrigin, io.TeeReader(src, sum), size)
	if r.err != nil {
		b.Fatalf("upload: %v", r.err)
	}
	want := sum.Sum(nil)
	read := a.mustTicket(wire.MethodAssetReadTicket, map[string]any{"path": "/bench/big.bin"})
	got, n := a.download(read.URL)
	if n != size || !bytes.Equal(got, want) {
		b.Fatalf("read back %d bytes, hash match %v", n, bytes.Equal(got, want))
	}
}

// pattern is an endless, cheap, non-zero byte stream.
type pattern struct{ i byte }

func (p *pattern) Read(b []byte) (int, error) {
	for k := range b {
		b[k] = p.i
		p.i = p.i*31 + 7
	}
	return len(b), nil
}

// procKiB reads one "Vm..." line of /proc/<pid>/status, in KiB.
func procKiB(b testing.TB, pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	b.Fatalf("%s not in /proc/%d/status", field, pid)
	return 0
}
