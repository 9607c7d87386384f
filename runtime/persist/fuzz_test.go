package persist

import (
	"encoding/json"
	"testing"
)

// A journal segment is whatever is on disk at start-up: decoding any
// bytes never panics, and every op it yields is one the database takes.
func FuzzDecodeSegment(f *testing.F) {
	ops := []Op{
		{Put: &Record{ID: "s_1", Status: "idle", Skills: json.RawMessage(`{"tools":[]}`), Pending: []PendingRecord{{ID: "tr_1", Tool: "echo"}}}},
		{SessionID: "s_1", Events: []Event{{Seq: 1, Frame: []byte(`{"seq":1}`)}, {Seq: 2, Frame: []byte(`{}`)}}, TrimBelow: 1},
		{Delete: "s_2"},
	}
	var legacy []byte
	for _, op := range ops {
		p, err := appendOp(nil, op)
		if err != nil {
			f.Fatal(err)
		}
		legacy = append(legacy, entry(p)...)
	}
	f.Add(hostileSegment)
	f.Add(legacy)
	f.Add(append(segmentHeader(), legacy...))
	f.Add(append(segmentHeader(), legacy[:len(legacy)-5]...))
	f.Add(append(append(segmentHeader(), entry([]byte("Zunknown"))...), legacy...))
	f.Add([]byte(segmentMagic + "\x02"))
	f.Add([]byte(segmentMagic + "\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		seg, err := decodeSegment("segment", data)
		if err != nil {
			return
		}
		if len(seg.ops) > len(data) {
			t.Fatalf("%d ops from %d bytes", len(seg.ops), len(data))
		}
		for _, op := range seg.ops {
			if op.Put != nil && !validID(op.Put.ID) || op.Delete != "" && !validID(op.Delete) || op.SessionID != "" && !validID(op.SessionID) {
				t.Fatalf("an op with an id that is no key: %+v", op)
			}
		}
	})
}

// A stored record or event is whatever the database file holds: decoding
// never panics, and a record it accepts can name a directory.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte("s_1"), []byte(`{"id":"s_1","status":"idle","seq":3,"pending":[{"id":"tr_1","tool":"echo"}]}`))
	f.Add([]byte("s_1"), []byte(`{"id":"s_2"}`))
	f.Add([]byte("../x"), []byte(`{"id":"../x"}`))
	f.Add([]byte("s_1"), []byte("{not json"))
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x01"), []byte(`{"type":"event"}`))
	f.Add([]byte("abc"), hostileSegment)
	f.Fuzz(func(t *testing.T, k, v []byte) {
		if r, err := decodeRecord(k, v); err == nil && (r.ID != string(k) || !validID(r.ID)) {
			t.Fatalf("accepted a record with id %q under key %q", r.ID, k)
		}
		if ev, ok := decodeEvent(k, v); ok && (ev.Seq <= 0 || !json.Valid(ev.Frame)) {
			t.Fatalf("accepted event %+v", ev)
		}
	})
}
