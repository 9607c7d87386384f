package schema

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"runtime"
	"sync"
	"unsafe"
	"weak"
)

// Identical argument schemas are common: a page declares many tools of
// the same shape, and every session of a page declares the same tools. A
// declared tool's memory is mostly its schema text, so the text is kept
// once for all the tools and sessions that use it, for as long as any of
// them does (issue 15: Core's RSS per declared tool).
//
// The table holds weak pointers, so it never keeps a schema alive, and a
// cleanup drops an entry once its text is gone.
var sharedSchemas = struct {
	sync.Mutex
	seed maphash.Seed
	m    map[uint64]sharedText
}{seed: maphash.MakeSeed(), m: map[uint64]sharedText{}}

// sharedText is the first byte of a schema text's own allocation and its
// length: the allocation stays alive as long as any tool's slice does.
type sharedText struct {
	first weak.Pointer[byte]
	n     int
}

// shareSchema returns an identical text already in use, or a copy of b.
// It never returns b itself, so b may be a reused buffer. The result's
// capacity is its length, so an append never writes into a shared text;
// nothing in Pedelec changes a schema's bytes in place.
func shareSchema(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return b[:0:0]
	}
	h := maphash.Bytes(sharedSchemas.seed, b)
	sharedSchemas.Lock()
	defer sharedSchemas.Unlock()
	if e, ok := sharedSchemas.m[h]; ok {
		if p := e.first.Value(); p != nil {
			if s := unsafe.Slice(p, e.n); bytes.Equal(s, b) {
				return s[:e.n:e.n]
			}
			return bytes.Clone(b) // another live text with the same hash: b stands on its own
		}
	}
	own := bytes.Clone(b) // b may sit in a larger buffer
	sharedSchemas.m[h] = sharedText{first: weak.Make(&own[0]), n: len(own)}
	runtime.AddCleanup(&own[0], forgetSchema, h)
	return own[:len(own):len(own)]
}

func forgetSchema(h uint64) {
	sharedSchemas.Lock()
	defer sharedSchemas.Unlock()
	if e, ok := sharedSchemas.m[h]; ok && e.first.Value() == nil {
		delete(sharedSchemas.m, h)
	}
}
