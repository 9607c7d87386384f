package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// report collects the figures and the growth tables of one run.
type report struct {
	started, finished  time.Time
	loadStart, loadEnd string
	quick              bool
	runs               int
	figures            []figure

	bySize, byCallers, bySessions []([]string)
	memSessions, memTools         []([]string)
}

func (r *report) add(f figure) {
	r.figures = append(r.figures, f)
	logf("%s: %s %s (target %s) %s", f.name, num(f.value), f.unit, f.targetText(), f.verdict())
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return "unknown CPU"
}

func (r *report) render() string {
	var b strings.Builder
	mode := ""
	if r.quick {
		mode = " (-quick: fewer samples)"
	}
	fmt.Fprintf(&b, "Run %s%s, %s, %d CPUs (%s), %s/%s, %s.\n", r.started.UTC().Format("2006-01-02 15:04 MST"), mode,
		time.Since(r.started).Round(time.Second), runtime.NumCPU(), cpuModel(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintf(&b, "Load average (1, 5, 15 min) at start %s, at end %s: on a shared machine every figure carries that load.\n\n", r.loadStart, r.loadEnd)
	missed := 0
	for _, f := range r.figures {
		if f.hasTarget() && !f.watched && !f.met() {
			missed++
		}
	}
	fmt.Fprintf(&b, "### Figures and targets\n\n%s\n", figureTable(r.figures))
	if missed > 0 {
		fmt.Fprintf(&b, "%d target(s) NOT MET in this run.\n\n", missed)
	} else {
		b.WriteString("Every target met in this run.\n\n")
	}
	b.WriteString("How each figure was measured:\n\n")
	for _, f := range r.figures {
		fmt.Fprintf(&b, "- %s: %s\n", f.name, f.how)
	}
	b.WriteString("\n### How the figures grow\n\n")
	b.WriteString("Argument (and result: the tool echoes its arguments) size, one connection:\n\n")
	b.WriteString(table([]string{"arguments", "p50 ms", "p99 ms"}, r.bySize))
	b.WriteString("\nCallers into one session, each on its own keep-alive connection:\n\n")
	b.WriteString(table([]string{"callers", "calls/s"}, r.byCallers))
	b.WriteString("\nSessions in Core beside the one being called, one connection:\n\n")
	b.WriteString(table([]string{"sessions", "p50 ms", "p99 ms"}, r.bySessions))
	b.WriteString("\nIdle sessions of 3 tools, Core RSS growth:\n\n")
	b.WriteString(table([]string{"sessions", "RSS growth MB", "KB per session"}, r.memSessions))
	b.WriteString("\nDeclared tools (sessions of equal size), Core RSS growth:\n\n")
	b.WriteString(table([]string{"tools", "RSS growth MB", "KB per tool"}, r.memTools))
	return b.String()
}

const (
	beginMarker = "<!-- bench:begin (written by scripts/bench.sh; edits inside are overwritten) -->"
	endMarker   = "<!-- bench:end -->"
)

// writeInto replaces the text between the markers of path, or appends a
// marked section when the file has none.
func writeInto(path, text string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	section := beginMarker + "\n\n" + text + "\n" + endMarker
	s := string(old)
	if i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker); i >= 0 && j > i {
		s = s[:i] + section + s[j+len(endMarker):]
	} else {
		if s != "" && !strings.HasSuffix(s, "\n\n") {
			s += "\n"
		}
		s += section + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
