package persist

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// hostileSegment is the 14 bytes of issue 20: a length of 2^64-1 whose
// "4+n" wrapped round, and a slice past the end panicked at every start.
var hostileSegment = []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01abcd")

// entry frames payload as the journal does.
func entry(payload []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, castagnoli()))
	return append(b, payload...)
}

// legacySegment is ops as Core wrote them before segments had a header.
func legacySegment(t *testing.T, ops ...Op) []byte {
	t.Helper()
	var b []byte
	for _, op := range ops {
		p, err := appendOp(nil, op)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, entry(p)...)
	}
	return b
}

func mustOpen(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// asideFiles lists the files set aside in dir.
func asideFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".unreadable-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// Issue 20: the 14-byte segment stops nothing. Open starts, keeps the
// ops of the other segments, and sets the hostile one aside, whole.
func TestHostileSegmentIsSetAsideNotAPanic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pedelec.db")
	os.WriteFile(segmentPath(path, 6), legacySegment(t, Op{Put: &Record{ID: "s_1", Status: "idle"}}), 0o600)
	os.WriteFile(segmentPath(path, 7), hostileSegment, 0o600)
	db := mustOpen(t, path)
	if recs, err := db.Sessions(); err != nil || len(recs) != 1 {
		t.Fatalf("sessions = %+v, %v", recs, err)
	}
	aside := asideFiles(t, dir)
	if len(aside) != 1 || !strings.HasPrefix(aside[0], "pedelec.db.journal.7.unreadable-") {
		t.Fatalf("set aside: %v", aside)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, aside[0])); !bytes.Equal(data, hostileSegment) {
		t.Fatalf("the set-aside segment holds %q", data)
	}
	if r := db.Recovered; r.Replayed != 1 || len(r.SetAside) != 1 || !r.Damaged() {
		t.Fatalf("recovery = %+v", r)
	}
}

// A length that overflows, in every position of a segment, is a torn
// frame: what came before it is kept.
func TestOverflowingLengthIsATornFrame(t *testing.T) {
	good := legacySegment(t, Op{Delete: "s_1"})
	for _, tail := range [][]byte{hostileSegment, hostileSegment[:10], binary.AppendUvarint(nil, 1<<63)} {
		ops, _, intact := decodeOps(append(append([]byte(nil), good...), tail...))
		if len(ops) != 1 || intact {
			t.Fatalf("tail %x: %d ops, intact %v", tail, len(ops), intact)
		}
	}
}

// An entry whose frame is whole but whose section is unknown costs that
// entry only, and says so: it no longer drops the rest of its segment
// without a word.
func TestUnknownSectionSkipsOnlyItsEntry(t *testing.T) {
	data := legacySegment(t, Op{Put: &Record{ID: "s_1"}})
	data = append(data, entry([]byte("Zwhat is this"))...)
	data = append(data, entry([]byte("D\x04../x"))...) // an id that is no key
	data = append(data, legacySegment(t, Op{Put: &Record{ID: "s_2"}})...)
	ops, skipped, intact := decodeOps(data)
	if len(ops) != 2 || ops[1].Put.ID != "s_2" || skipped != 2 || intact {
		t.Fatalf("%d ops, %d skipped, intact %v", len(ops), skipped, intact)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "pedelec.db")
	os.WriteFile(segmentPath(path, 1), data, 0o600)
	db := mustOpen(t, path)
	if recs, _ := db.Sessions(); len(recs) != 2 {
		t.Fatalf("sessions = %+v", recs)
	}
	if r := db.Recovered; r.SkippedOps != 2 || len(r.SetAside) != 1 {
		t.Fatalf("recovery = %+v", r)
	}
}

// A segment cut short keeps its whole entries and is set aside.
func TestTruncatedSegmentKeepsItsWholeEntries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pedelec.db")
	data := append(segmentHeader(), legacySegment(t, Op{Put: &Record{ID: "s_1"}}, Op{Put: &Record{ID: "s_2"}})...)
	os.WriteFile(segmentPath(path, 3), data[:len(data)-3], 0o600)
	db := mustOpen(t, path)
	if recs, _ := db.Sessions(); len(recs) != 1 || recs[0].ID != "s_1" {
		t.Fatalf("sessions = %+v", recs)
	}
	if aside := asideFiles(t, dir); len(aside) != 1 {
		t.Fatalf("set aside: %v", aside)
	}
	if segs, _ := segments(path); len(segs) != 1 || segs[0] != 4 {
		t.Fatalf("segments = %v, want the new one, 4", segs)
	}
}

// A database file that is not one (garbage, a half-copied backup, a
// directory) is set aside with its journal, and Core starts afresh.
func TestUnreadableDatabaseIsSetAside(t *testing.T) {
	full := func(t *testing.T, path string) []byte {
		db := mustOpen(t, path)
		var ops []Op
		for i := range 200 {
			id := "s_" + strings.Repeat("a", i%50+1)
			ops = append(ops, Op{Put: &Record{ID: id, Skills: json.RawMessage(`"` + strings.Repeat("x", 3000) + `"`)}},
				Op{SessionID: id, Events: []Event{{Seq: int64(i + 1), Frame: []byte(`"` + strings.Repeat("y", 2000) + `"`)}}})
		}
		db.Apply(ops)
		db.Close()
		data, _ := os.ReadFile(path)
		return data
	}
	truncated := func(t *testing.T, path string) {
		data := full(t, path)
		os.Truncate(path, int64(len(data)/3))
	}
	scribbled := func(t *testing.T, path string) {
		data := full(t, path)
		for i := 2 * 4096; i < len(data); i += 4096 {
			copy(data[i:], "\x03\x00\xff\xff\xff\xff\xff\xff") // a page header that is no page
		}
		os.WriteFile(path, data, 0o600)
	}
	cases := map[string]func(t *testing.T, path string){
		"garbage":   func(t *testing.T, path string) { os.WriteFile(path, bytes.Repeat([]byte("garbage!"), 8192), 0o600) },
		"small":     func(t *testing.T, path string) { os.WriteFile(path, []byte("not a database"), 0o600) },
		"directory": func(t *testing.T, path string) { os.Mkdir(path, 0o700) },
		"truncated": truncated,
		"scribbled": scribbled,
		"zeroed pages": func(t *testing.T, path string) {
			db := mustOpen(t, path)
			db.Apply([]Op{{Put: &Record{ID: "s_1"}}})
			db.Close()
			data, _ := os.ReadFile(path)
			clear(data[2*4096:]) // every page after the two meta pages
			os.WriteFile(path, data, 0o600)
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "pedelec.db")
			damage(t, path)
			os.WriteFile(segmentPath(path, 9), legacySegment(t, Op{Put: &Record{ID: "s_9"}}), 0o600)
			db := mustOpen(t, path)
			r := db.Recovered
			t.Logf("unreadable: %s", r.Unreadable)
			if r.Unreadable == "" || len(r.SetAside) != 2 {
				t.Fatalf("recovery = %+v", r)
			}
			if recs, err := db.Sessions(); err != nil || len(recs) != 0 {
				t.Fatalf("a fresh database holds %+v, %v", recs, err)
			}
			aside := asideFiles(t, dir)
			if len(aside) != 2 || !strings.HasPrefix(aside[0], "pedelec.db.journal.9.unreadable-") || !strings.HasPrefix(aside[1], "pedelec.db.unreadable-") {
				t.Fatalf("set aside: %v", aside)
			}
		})
	}
}

// A file of a newer format is refused, untouched, with a message that
// names it and says what to do.
func TestNewerFormatIsRefused(t *testing.T) {
	t.Run("journal", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "pedelec.db")
		seg := segmentPath(path, 2)
		data := append(binary.AppendUvarint([]byte(segmentMagic), FormatVersion+1), "whatever comes next"...)
		os.WriteFile(seg, data, 0o600)
		_, err := Open(path, time.Second)
		wantNewer(t, err, seg)
		if got, _ := os.ReadFile(seg); !bytes.Equal(got, data) {
			t.Fatal("the newer segment was changed")
		}
	})
	t.Run("database", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "pedelec.db")
		db := mustOpen(t, path)
		db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(metaBucket).Put(formatKey, []byte("7")) })
		db.Close()
		_, err := Open(path, time.Second)
		wantNewer(t, err, path)
		if aside := asideFiles(t, dir); len(aside) != 0 {
			t.Fatalf("a newer database was set aside: %v", aside)
		}
	})
}

func wantNewer(t *testing.T, err error, path string) {
	t.Helper()
	var newer *NewerFormatError
	if !errors.As(err, &newer) || newer.Path != path || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "use the newer pedelec, or move the file aside") {
		t.Fatalf("err = %v, want a NewerFormatError naming %s", err, path)
	}
}

// State directories from before format versions keep working: a database
// without its meta bucket and a segment without a header are version 1.
func TestUnversionedFilesAreVersion1(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pedelec.db")
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{sessionsBucket, eventsBucket, skillsBucket} {
			tx.CreateBucket(name)
		}
		return tx.Bucket(sessionsBucket).Put([]byte("s_old"), []byte(`{"id":"s_old","status":"idle","seq":4}`))
	})
	b.Close()
	os.WriteFile(segmentPath(path, 5), legacySegment(t, Op{SessionID: "s_old", Events: []Event{{Seq: 5, Frame: []byte(`{}`)}}}), 0o600)

	db := mustOpen(t, path)
	if r := db.Recovered; r.Damaged() || r.Sessions != 1 || r.Replayed != 1 {
		t.Fatalf("recovery = %+v", r)
	}
	if evs, _ := db.Events("s_old"); len(evs) != 1 || evs[0].Seq != 5 {
		t.Fatalf("events = %+v", evs)
	}
	db.bolt.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(metaBucket).Get(formatKey); string(v) != "1" {
			t.Errorf("format version written = %q", v)
		}
		return nil
	})
}

// A record that does not decode (or whose id could not name a directory)
// is kept in the setAside bucket, as it was; the others are restored; an
// event whose key is no seq is left out, not a panic.
func TestUndecodableRecordIsSetAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pedelec.db")
	db := mustOpen(t, path)
	db.Apply([]Op{{Put: &Record{ID: "s_good"}}, {SessionID: "s_good", Events: []Event{{Seq: 1, Frame: []byte(`{}`)}}}})
	db.bolt.Update(func(tx *bolt.Tx) error {
		s := tx.Bucket(sessionsBucket)
		s.Put([]byte("s_bad"), []byte("{not json"))
		s.Put([]byte("s_other"), []byte(`{"id":"s_good"}`))
		s.Put([]byte("../x"), []byte(`{"id":"../x"}`))
		tx.Bucket(eventsBucket).Bucket([]byte("s_good")).Put([]byte("abc"), []byte(`{}`))
		return nil
	})
	db.Close()

	db = mustOpen(t, path)
	if r := db.Recovered; r.Sessions != 1 || strings.Join(r.BadRecords, ",") != "../x,s_bad,s_other" {
		t.Fatalf("recovery = %+v", r)
	}
	if recs, err := db.Sessions(); err != nil || len(recs) != 1 || recs[0].ID != "s_good" {
		t.Fatalf("sessions = %+v, %v", recs, err)
	}
	if evs, _ := db.Events("s_good"); len(evs) != 1 {
		t.Fatalf("events = %+v", evs)
	}
	n := 0
	db.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(setAsideBucket).ForEach(func(k, v []byte) error {
			if strings.HasPrefix(string(k), "s_bad ") && string(v) != "{not json" {
				t.Errorf("set aside %s as %q", k, v)
			}
			n++
			return nil
		})
	})
	if n != 3 {
		t.Fatalf("%d records set aside, want 3", n)
	}
}

// A file whose name reads as a segment number but is not the name Core
// gives that number (journal.07, a copy beside journal.7) was listed as
// segment 7, read under the name journal.7, and then could be neither
// removed nor set aside by that name: Open failed and Core did not start.
// It is not Core's: it stays where it is, unread.
func TestSegmentNameCoreDidNotWriteIsIgnored(t *testing.T) {
	for _, name := range []string{"07", "007", "+7"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "pedelec.db")
			os.WriteFile(segmentPath(path, 7), legacySegment(t, Op{Put: &Record{ID: "s_1", Status: "idle"}}), 0o600)
			stray := path + ".journal." + name
			os.WriteFile(stray, legacySegment(t, Op{Put: &Record{ID: "s_2", Status: "idle"}}), 0o600)
			db, err := Open(path, time.Second)
			if err != nil {
				t.Fatalf("Open with a file named %s: %v", filepath.Base(stray), err)
			}
			defer db.Close()
			if recs, err := db.Sessions(); err != nil || len(recs) != 1 || recs[0].ID != "s_1" {
				t.Fatalf("sessions = %+v, %v; want s_1 alone", recs, err)
			}
			if _, err := os.Stat(stray); err != nil {
				t.Errorf("the stray file: %v", err)
			}
		})
	}
}
