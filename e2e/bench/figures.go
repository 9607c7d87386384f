package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// figure is one measured number with the target for it.
type figure struct {
	name   string
	value  float64
	unit   string
	target float64 // NaN: no target, reported for context
	// watched: a former target kept in view, no longer a goal (package
	// init and process ratios against hello-world, which a user does not
	// feel next to an agent's own start): shown, never counted as missed.
	watched bool
	higher  bool   // true when a larger value is better (calls/s)
	how     string // how it was measured, one line
}

func (f figure) hasTarget() bool { return !math.IsNaN(f.target) }

// met says whether the target is reached.
func (f figure) met() bool {
	if !f.hasTarget() {
		return true
	}
	if f.higher {
		return f.value >= f.target
	}
	return f.value <= f.target
}

// ratio is value/target: ≤ 1 is good for "lower is better", ≥ 1 for "higher".
func (f figure) ratio() float64 { return f.value / f.target }

func (f figure) verdict() string {
	switch {
	case !f.hasTarget():
		return "(context)"
	case f.watched:
		return "(watched)"
	case f.met():
		return "MET"
	default:
		return "NOT MET"
	}
}

func (f figure) targetText() string {
	if !f.hasTarget() {
		return "—"
	}
	if f.higher {
		return "≥ " + num(f.target) + " " + f.unit
	}
	return "≤ " + num(f.target) + " " + f.unit
}

func (f figure) ratioText() string {
	if !f.hasTarget() {
		return "—"
	}
	return fmt.Sprintf("%.2f×", f.ratio())
}

// num prints a number with sensible precision.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile of sorted-or-not durations, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	i = max(0, min(i, len(s)-1))
	return s[i]
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// table renders rows as an aligned Markdown table (readable as plain text too).
func table(header []string, rows [][]string) string {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = len([]rune(h))
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			b.WriteString(" " + c + strings.Repeat(" ", widths[i]-len([]rune(c))) + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = strings.Repeat("-", widths[i])
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

func figureTable(fs []figure) string {
	rows := make([][]string, 0, len(fs))
	for _, f := range fs {
		rows = append(rows, []string{f.name, num(f.value) + " " + f.unit, f.targetText(), f.ratioText(), f.verdict()})
	}
	return table([]string{"figure", "measured", "target", "ratio", ""}, rows)
}
