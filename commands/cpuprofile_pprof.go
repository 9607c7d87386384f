//go:build pedelec_pprof

package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"time"
)

// A binary built with -tags pedelec_pprof writes a CPU profile of each
// process it runs when PEDELEC_CPU_PROFILE names a directory: the
// process's first PEDELEC_CPU_PROFILE_SECONDS (default 20) seconds, to
// <dir>/<command>-<pid>.pprof. For measuring (docs/performance.md), never
// in a release build.
func init() {
	dir := os.Getenv("PEDELEC_CPU_PROFILE")
	if dir == "" {
		return
	}
	secs, err := strconv.Atoi(os.Getenv("PEDELEC_CPU_PROFILE_SECONDS"))
	if err != nil || secs <= 0 {
		secs = 20
	}
	name := "pedelec"
	if len(os.Args) > 1 {
		name = filepath.Base(os.Args[1])
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, os.Getpid())))
	if err != nil {
		return
	}
	if pprof.StartCPUProfile(f) != nil {
		f.Close()
		return
	}
	time.AfterFunc(time.Duration(secs)*time.Second, func() {
		pprof.StopCPUProfile()
		f.Close()
	})
}
