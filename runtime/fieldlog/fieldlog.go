// Package fieldlog is a logger that carries a few fields cheaply.
package fieldlog

import "github.com/charmbracelet/log"

// Log is a logger with fields (a session's id, a turn's id) that is
// cheap to hold: charmbracelet's With copies the whole logger, styles and
// all, about 4.3 KB, which was two thirds of an idle session's heap
// (BenchmarkHeapPerIdleSession: 6.9 KB). Log adds its fields to each
// line instead, where lines are rare and sessions are many.
type Log struct {
	base   *log.Logger
	fields []any // key, value, ...
}

func New(base *log.Logger, keyvals ...any) Log {
	return Log{base: base, fields: keyvals}
}

// With is a Log with more fields.
func (l Log) With(keyvals ...any) Log {
	return Log{base: l.base, fields: append(append([]any(nil), l.fields...), keyvals...)}
}

func (l Log) Debug(msg string, keyvals ...any) { l.log(log.DebugLevel, msg, keyvals) }
func (l Log) Info(msg string, keyvals ...any)  { l.log(log.InfoLevel, msg, keyvals) }
func (l Log) Warn(msg string, keyvals ...any)  { l.log(log.WarnLevel, msg, keyvals) }
func (l Log) Error(msg string, keyvals ...any) { l.log(log.ErrorLevel, msg, keyvals) }

func (l Log) log(level log.Level, msg string, keyvals []any) {
	if l.base == nil || l.base.GetLevel() > level {
		return
	}
	l.base.Log(level, msg, append(append(make([]any, 0, len(l.fields)+len(keyvals)), l.fields...), keyvals...)...)
}
