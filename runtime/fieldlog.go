package runtime

import "github.com/charmbracelet/log"

// fieldLog is a logger with fields (a session's id, a turn's id) that is
// cheap to hold: charmbracelet's With copies the whole logger, styles and
// all, about 4.3 KB, which was two thirds of an idle session's heap
// (BenchmarkHeapPerIdleSession: 6.9 KB). fieldLog adds its fields to each
// line instead, where lines are rare and sessions are many.
type fieldLog struct {
	base   *log.Logger
	fields []any // key, value, ...
}

func newFieldLog(base *log.Logger, keyvals ...any) fieldLog {
	return fieldLog{base: base, fields: keyvals}
}

// With is a fieldLog with more fields.
func (l fieldLog) With(keyvals ...any) fieldLog {
	return fieldLog{base: l.base, fields: append(append([]any(nil), l.fields...), keyvals...)}
}

func (l fieldLog) Debug(msg string, keyvals ...any) { l.log(log.DebugLevel, msg, keyvals) }
func (l fieldLog) Info(msg string, keyvals ...any)  { l.log(log.InfoLevel, msg, keyvals) }
func (l fieldLog) Warn(msg string, keyvals ...any)  { l.log(log.WarnLevel, msg, keyvals) }
func (l fieldLog) Error(msg string, keyvals ...any) { l.log(log.ErrorLevel, msg, keyvals) }

func (l fieldLog) log(level log.Level, msg string, keyvals []any) {
	if l.base == nil || l.base.GetLevel() > level {
		return
	}
	l.base.Log(level, msg, append(append(make([]any, 0, len(l.fields)+len(keyvals)), l.fields...), keyvals...)...)
}
