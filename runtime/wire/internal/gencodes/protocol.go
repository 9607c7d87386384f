package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// protocolTSPath is the SDK's side of the page WebSocket, written whole
// from wire.PageMethods, wire.PageEvents and the frame types.
const protocolTSPath = "sdk/src/client/protocol.gen.ts"

// tsNames renames the Go types whose own name would mislead in TypeScript
// (Error would shadow the global).
var tsNames = map[reflect.Type]string{
	reflect.TypeFor[wire.Error](): "WireError",
}

// enumValues are the named string types that are closed lists: each
// becomes a union of its values. A named string type in neither this nor
// plainStrings is an error, so a new enum is never silently a string.
var enumValues = map[reflect.Type][]string{
	reflect.TypeFor[wire.Status]():        strs(wire.Statuses),
	reflect.TypeFor[wire.SettleOutcome](): strs(wire.SettleOutcomes),
	reflect.TypeFor[wire.EndReason]():     strs(wire.EndReasons),
}

// plainStrings are named string types that stay string in TypeScript:
// the codes are their own union (codes.gen.ts), and a newer Core's unknown
// code must still arrive.
var plainStrings = map[reflect.Type]bool{
	reflect.TypeFor[wire.Code](): true,
}

var (
	rawJSONType = reflect.TypeFor[json.RawMessage]()
	timeType    = reflect.TypeFor[time.Time]()
)

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// tsWriter turns Go types into TypeScript, each named type once, in the
// order they are first met.
type tsWriter struct {
	docs  wireDocs
	named map[reflect.Type]string // declared (or being declared) → its TS name
	decls []string
	err   error
}

// wirePkg is where the documented types live.
var wirePkg = reflect.TypeFor[wire.Error]().PkgPath()

// docOf is the Go doc comment of a named wire type.
func (w *tsWriter) docOf(t reflect.Type) string {
	if t.PkgPath() != wirePkg {
		return ""
	}
	return w.docs.types[t.Name()]
}

func (w *tsWriter) fail(format string, args ...any) string {
	if w.err == nil {
		w.err = fmt.Errorf(format, args...)
	}
	return "never"
}

// ref is how a field of type t is written: a name for a named struct or
// enum (declared on first use), an inline type otherwise.
func (w *tsWriter) ref(t reflect.Type) string {
	switch {
	case t == rawJSONType:
		return "JsonValue"
	case t == timeType:
		return "string" // RFC 3339
	}
	switch t.Kind() {
	case reflect.Pointer:
		return w.ref(t.Elem())
	case reflect.String:
		if t.Name() == "string" || plainStrings[t] {
			return "string"
		}
		values, ok := enumValues[t]
		if !ok {
			return w.fail("%s: a named string type needs its values in gencodes' enumValues (or plainStrings)", t)
		}
		return w.declare(t, func() string {
			quoted := make([]string, len(values))
			for i, v := range values {
				quoted[i] = fmt.Sprintf("%q", v)
			}
			return strings.Join(quoted, " | ")
		})
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		elem := w.ref(t.Elem())
		if strings.ContainsAny(elem, " |") {
			elem = "(" + elem + ")"
		}
		return elem + "[]"
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return w.fail("%s: only maps with string keys are JSON objects", t)
		}
		return "Record<string, " + w.ref(t.Elem()) + ">"
	case reflect.Interface:
		return "unknown"
	case reflect.Struct:
		if t.Name() == "" {
			return inline(w.fields(t, nil))
		}
		return w.declare(t, func() string { return w.block(t, w.fields(t, nil)) })
	}
	return w.fail("%s: no TypeScript for a %s", t, t.Kind())
}

// declare names t and writes its declaration once.
func (w *tsWriter) declare(t reflect.Type, body func() string) string {
	if name, ok := w.named[t]; ok {
		return name
	}
	name := t.Name()
	if n, ok := tsNames[t]; ok {
		name = n
	}
	w.named[t] = name
	i := len(w.decls)
	w.decls = append(w.decls, "") // keeps the order of first use
	w.decls[i] = jsDoc(w.docOf(t), "") + fmt.Sprintf("export type %s = %s;\n", name, body())
	return name
}

// tsField is one member of an object type.
type tsField struct{ name, opt, typ, doc string }

// fields are a struct's members as JSON sees them: exported fields under
// their json names; omitempty makes a field optional, a pointer without it
// nullable. override gives a field, by its JSON name, its type; it is then
// required.
func (w *tsWriter) fields(t reflect.Type, override map[string]string) []tsField {
	var out []tsField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous {
			w.fail("%s.%s: embedded fields are not written", t, f.Name)
			continue
		}
		if name == "" {
			name = f.Name
		}
		field := tsField{name: name}
		if t.PkgPath() == wirePkg {
			field.doc = w.docs.fields[t.Name()+"."+f.Name]
		}
		typ, ok := override[name]
		if !ok {
			typ = w.ref(f.Type)
			if f.Type.Kind() == reflect.Pointer && !strings.Contains(opts, "omitempty") {
				typ += " | null"
			}
			if strings.Contains(opts, "omitempty") {
				field.opt = "?"
			}
		}
		field.typ = typ
		out = append(out, field)
	}
	return out
}

// inline writes an object type on one line (an anonymous struct).
func inline(fields []tsField) string {
	if len(fields) == 0 {
		return "Record<string, never>"
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.name + f.opt + ": " + f.typ
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// block writes an object type a member a line, each with its Go doc.
func (w *tsWriter) block(_ reflect.Type, fields []tsField) string {
	if len(fields) == 0 {
		return "Record<string, never>"
	}
	var b strings.Builder
	b.WriteString("{\n")
	for _, f := range fields {
		b.WriteString(jsDoc(f.doc, "  "))
		fmt.Fprintf(&b, "  %s%s: %s;\n", f.name, f.opt, f.typ)
	}
	b.WriteString("}")
	return b.String()
}

// protocolTS is sdk/src/client/protocol.gen.ts.
func protocolTS(root string) (string, error) {
	docs, err := readWireDocs(root)
	if err != nil {
		return "", err
	}
	w := &tsWriter{docs: docs, named: map[reflect.Type]string{}}
	var b strings.Builder
	b.WriteString("// Generated by `go generate ./runtime/wire` from the page methods and events\n")
	b.WriteString("// in runtime/wire/page.go and the Go types they name; do not edit.\n")
	b.WriteString("// docs/protocol.md says what each method and event means.\n\n")
	b.WriteString("import type { JsonValue } from \"../types.js\";\n\n")

	b.WriteString("/** Every method a page may call: what it sends and what Core answers. */\n")
	b.WriteString("export type Methods = {\n")
	for _, m := range wire.PageMethods {
		b.WriteString(jsDoc(docs.consts[m.Name], "  "))
		fmt.Fprintf(&b, "  %s: { params: %s; result: %s };\n", m.Name, w.ref(m.Params), w.ref(m.Result))
	}
	b.WriteString("};\n\nexport type Method = keyof Methods;\n")
	b.WriteString("export type ParamsOf<M extends Method> = Methods[M][\"params\"];\n")
	b.WriteString("export type ResultOf<M extends Method> = Methods[M][\"result\"];\n\n")

	b.WriteString("/** Every event Core sends a page: its payload, by event name. */\n")
	b.WriteString("export type Events = {\n")
	for _, e := range wire.PageEvents {
		b.WriteString(jsDoc(docs.consts[e.Name], "  "))
		fmt.Fprintf(&b, "  %s: %s;\n", e.Name, w.ref(e.Data))
	}
	b.WriteString("};\n\nexport type EventName = keyof Events;\n\n")

	frame := func(t reflect.Type, override map[string]string) string {
		return w.block(t, w.fields(t, override))
	}
	request, response, ev, hello := reflect.TypeFor[wire.Request](), reflect.TypeFor[wire.Response](), reflect.TypeFor[wire.Event](), reflect.TypeFor[wire.Hello]()
	b.WriteString(jsDoc(w.docOf(request), ""))
	fmt.Fprintf(&b, "export type RequestFrame<M extends Method = Method> = %s;\n\n", frame(request,
		map[string]string{"type": fmt.Sprintf("%q", wire.FrameRequest), "method": "M", "params": "ParamsOf<M>"}))
	b.WriteString(jsDoc(w.docOf(response), ""))
	fmt.Fprintf(&b, "export type ResponseFrame = %s;\n\n", frame(response, map[string]string{"type": fmt.Sprintf("%q", wire.FrameResponse)}))
	b.WriteString(jsDoc(w.docOf(ev)+"\n\nA union by event name: a switch on `event` narrows `data`.", ""))
	fmt.Fprintf(&b, "export type EventFrame = {\n  [E in EventName]: %s;\n}[EventName];\n\n", strings.ReplaceAll(frame(ev,
		map[string]string{"type": fmt.Sprintf("%q", wire.FrameEvent), "event": "E", "data": "Events[E]"}), "\n", "\n  "))
	b.WriteString(jsDoc(w.docOf(hello), ""))
	fmt.Fprintf(&b, "export type HelloFrame = %s;\n\n", frame(hello, map[string]string{"type": fmt.Sprintf("%q", wire.FrameHello)}))

	b.WriteString("// ---- the types the methods and events name ----\n\n")
	b.WriteString(strings.Join(w.decls, "\n"))
	if w.err != nil {
		return "", w.err
	}
	return b.String(), nil
}
