package schema

import (
	"encoding/json"
	"runtime"
	"testing"
	"time"
)

// Tools with the same schema text hold one copy of it, and the table
// forgets a text once no tool holds it.
func TestShareSchema(t *testing.T) {
	text := `{"type":"object","properties":{"x":{"type":"string"}},"required":["x"],"n":"share-test"}`
	a := shareSchema(json.RawMessage(text))
	b := shareSchema(json.RawMessage(text))
	c := shareSchema(json.RawMessage(`{"type":"object","n":"share-test-2"}`))
	if &a[0] != &b[0] {
		t.Error("identical schemas are not shared")
	}
	if &a[0] == &c[0] || string(c) != `{"type":"object","n":"share-test-2"}` {
		t.Error("different schemas are shared")
	}
	if string(a) != text || cap(a) != len(a) {
		t.Errorf("shared text %q, len %d cap %d", a, len(a), cap(a))
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	a, b, c = nil, nil, nil
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		sharedSchemas.Lock()
		n := len(sharedSchemas.m)
		sharedSchemas.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d texts still in the table after their tools are gone", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
