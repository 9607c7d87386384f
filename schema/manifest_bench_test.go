package schema

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchManifest is e2e/bench's validate-tools manifest: n tools shaped like
// the seeds' create_card, each with its own name and description.
func benchManifest(n int) []byte {
	const argsSchema = `{"type":"object","properties":{"card":{"type":"object","properties":{
"title":{"type":"string","description":"The card's title, one line.","minLength":1,"maxLength":120},
"labels":{"type":"array","items":{"type":"string","enum":["red","green","blue"]},"maxItems":10,"uniqueItems":true},
"priority":{"type":"integer","minimum":1,"maximum":5}},"required":["title"]}},"required":["card"]}`
	tools := make([]string, n)
	for i := range tools {
		tools[i] = fmt.Sprintf(`{"name":"create_card_%d","description":"Create card %d in the active column of the board; returns the new card's id.","argsSchema":%s,"timeoutMs":10000}`, i, i, argsSchema)
	}
	return []byte(`{"guidance":"Use the tools to manage the board.","tools":[` + strings.Join(tools, ",") + `]}`)
}

// BenchmarkParseManifest1000Tools measures what `pedelec validate-tools`
// does with the bench's 1,000-tool manifest once the file is read.
func BenchmarkParseManifest1000Tools(b *testing.B) {
	data := benchManifest(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		s, problems, err := ParseManifest(data)
		if err != nil || len(problems) > 0 || len(s.Tools) != 1000 {
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
