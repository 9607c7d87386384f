package schema

import (
	"github.com/kaoruisaac/pedelec/e2e/cardtools"
	"syscall"
	"testing"
	"time"
)

// benchManifest is e2e/bench's validate-tools manifest.
func benchManifest(n int) []byte { return cardtools.Manifest(n) }

// BenchmarkParseManifest1000Tools checks the bench's 1,000-tool manifest
// and builds its Tools: validate-tools' check.
func BenchmarkParseManifest1000Tools(b *testing.B) {
	benchCheck(b, func(data string) (int, []Problem, error) {
		s, problems, err := ParseManifest(data)
		return len(s.Tools), problems, err
	})
}

// benchCheck runs check on the bench manifest of 1,000 valid tools.
func benchCheck(b *testing.B, check func(string) (int, []Problem, error)) {
	data := string(benchManifest(1000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		n, problems, err := check(data)
		if err != nil || len(problems) > 0 || n != 1000 {
			b.Fatal(err, problems)
		}
	}
	// The process's CPU time (the collector's included) is steadier than
	// wall time on a shared machine.
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
