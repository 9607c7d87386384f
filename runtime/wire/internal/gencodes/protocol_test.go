package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The rules a generated type follows, one field each: what JSON the Go
// field can carry is what the TypeScript type admits.
func TestTypeScriptOfAStruct(t *testing.T) {
	type sample struct {
		Plain    string           `json:"plain"`
		Optional string           `json:"optional,omitempty"`
		Nullable *int64           `json:"nullable"`
		Pointer  *bool            `json:"pointer,omitempty"`
		Raw      json.RawMessage  `json:"raw"`
		When     time.Time        `json:"when"`
		Status   wire.Status      `json:"status"`
		Code     wire.Code        `json:"code"`
		List     []wire.EndReason `json:"list"`
		Map      map[string]any   `json:"map"`
		Hidden   string           `json:"-"`
	}
	w := &tsWriter{named: map[reflect.Type]string{}}
	got := inline(w.fields(reflect.TypeFor[sample](), nil))
	want := `{ plain: string; optional?: string; nullable: number | null; pointer?: boolean; raw: JsonValue; when: string; status: Status; code: string; list: EndReason[]; map: Record<string, unknown> }`
	if got != want || w.err != nil {
		t.Errorf("got  %s\nwant %s (%v)", got, want, w.err)
	}
	if decls := strings.Join(w.decls, ""); !strings.Contains(decls, `export type Status = "idle" | "running"`) || !strings.Contains(decls, `export type EndReason = "end_session"`) {
		t.Errorf("enums not declared as unions of their values:\n%s", decls)
	}
}

// A named string type with no value list is refused, not written as string.
func TestUnknownEnumIsAnError(t *testing.T) {
	type kind string
	type sample struct {
		Kind kind `json:"kind"`
	}
	w := &tsWriter{named: map[reflect.Type]string{}}
	w.ref(reflect.TypeFor[sample]())
	if w.err == nil || !strings.Contains(w.err.Error(), "enumValues") {
		t.Errorf("err = %v, want one naming enumValues", w.err)
	}
}
