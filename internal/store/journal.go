package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The journal is what makes a page's view durable without a database
// commit per event. Every op is appended to it (in memory, then with one
// write(2) before Core sends the page anything), and the database takes the
// same ops in batches, with fsync, a few milliseconds later. A process that
// dies (kill -9, a crash) loses nothing it wrote: the kernel has the bytes.
// At the next Open the journal's ops are applied to the database in order
// and the journal is removed. A power cut can take the journal's unsynced
// tail, never the database's consistency: bbolt's own commits are synced.
//
// The journal is a series of segment files, <db>.journal.<n>. The writer
// starts a new segment whenever it takes a batch for the database, and
// removes a segment once the batch holding all of its ops committed.
//
// Each op is one entry: uvarint length, CRC-32C of the payload (4 bytes,
// little endian), payload. A torn or corrupt entry ends the replay of its
// segment: whatever follows it was never written whole.

// castagnoli is made on first use: every pedelec process, tool-call too,
// links this package, and the table is 8 KB of work at init.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Payload sections, in this order when present.
const (
	secPut    = 'P' // uvarint length, the Record as JSON (its Skills included)
	secDelete = 'D' // uvarint length, session id
	secEvents = 'E' // uvarint length, session id; varint TrimBelow; uvarint count; per event: varint seq, uvarint length, frame
)

// Journal appends ops to the current segment.
type Journal struct {
	base string // the database's path; segments are base + ".journal.<n>"

	mu      sync.Mutex // buf, scratch
	buf     []byte
	scratch []byte // where an op is encoded before it is framed into buf

	fileMu sync.Mutex // f, seg: one writer of the file at a time
	f      *os.File
	seg    uint64
	spare  []byte // the last written buffer, reused
}

// Append encodes op into the journal's buffer; Write puts it in the file.
func (j *Journal) Append(op Op) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	// Encoded into a buffer kept from op to op: every event of every
	// session passes here, and a fresh payload each time was garbage.
	payload, err := appendOp(j.scratch[:0], op)
	if err != nil {
		return err
	}
	if cap(payload) <= 64<<10 {
		j.scratch = payload // not a large manifest's buffer
	}
	j.buf = binary.AppendUvarint(j.buf, uint64(len(payload)))
	j.buf = binary.LittleEndian.AppendUint32(j.buf, crc32.Checksum(payload, castagnoli()))
	j.buf = append(j.buf, payload...)
	return nil
}

// Write hands what was appended to the kernel, in one write(2).
func (j *Journal) Write() error {
	j.fileMu.Lock()
	defer j.fileMu.Unlock()
	return j.writeLocked()
}

func (j *Journal) writeLocked() error {
	j.mu.Lock()
	data := j.buf
	j.buf, j.spare = j.spare[:0], nil
	j.mu.Unlock()
	if len(data) == 0 {
		j.spare = data
		return nil
	}
	if j.f == nil {
		return errors.New("no journal segment is open")
	}
	_, err := j.f.Write(data)
	if cap(data) <= 1<<20 {
		j.spare = data[:0] // keep a modest buffer, not a burst's
	}
	return err
}

// Rotate writes what is pending, closes the current segment and starts the
// next; it returns the finished segment's number, for Remove once its ops
// are in the database.
func (j *Journal) Rotate() (uint64, error) {
	j.fileMu.Lock()
	defer j.fileMu.Unlock()
	err := j.writeLocked()
	done := j.seg
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	j.seg++
	f, oerr := os.OpenFile(segmentPath(j.base, j.seg), os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o600)
	if oerr != nil {
		// Keep appending somewhere: the old segment, reopened. The ops
		// stay in order; the segment is just not removed.
		f, rerr := os.OpenFile(segmentPath(j.base, done), os.O_WRONLY|os.O_APPEND, 0o600)
		j.f, j.seg = f, done
		if rerr != nil {
			j.f = nil // Write reports it; the database still gets every op
		}
		return 0, errors.Join(err, oerr, rerr)
	}
	j.f = f
	return done, err
}

// Remove deletes a finished segment.
func (j *Journal) Remove(seg uint64) error {
	err := os.Remove(segmentPath(j.base, seg))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Close writes what is pending and closes the segment. The segment stays,
// for the next Open, unless it is empty.
func (j *Journal) Close() error {
	j.fileMu.Lock()
	defer j.fileMu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.writeLocked()
	empty := false
	if info, serr := j.f.Stat(); serr == nil {
		empty = info.Size() == 0
	}
	err = errors.Join(err, j.f.Close())
	j.f = nil
	if empty && err == nil {
		err = j.Remove(j.seg)
	}
	return err
}

// abandon closes the segment without writing what is pending (Abandon).
func (j *Journal) abandon() error {
	j.fileMu.Lock()
	defer j.fileMu.Unlock()
	j.mu.Lock()
	j.buf = nil
	j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Current is the segment being appended to.
func (j *Journal) Current() uint64 {
	j.fileMu.Lock()
	defer j.fileMu.Unlock()
	return j.seg
}

func segmentPath(base string, seg uint64) string {
	return base + ".journal." + strconv.FormatUint(seg, 10)
}

// segments lists base's journal segments, oldest first.
func segments(base string) ([]uint64, error) {
	dir, prefix := filepath.Dir(base), filepath.Base(base)+".journal."
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var segs []uint64
	for _, e := range entries {
		if n, ok := strings.CutPrefix(e.Name(), prefix); ok {
			if seg, err := strconv.ParseUint(n, 10, 64); err == nil {
				segs = append(segs, seg)
			}
		}
	}
	sort.Slice(segs, func(a, b int) bool { return segs[a] < segs[b] })
	return segs, nil
}

// replayJournal applies the ops of every segment a previous Core left to
// the database, in order, in one transaction, then removes the segments
// and opens a fresh journal. It returns how many ops it applied.
func (d *DB) replayJournal() (*Journal, int, error) {
	segs, err := segments(d.path)
	if err != nil {
		return nil, 0, err
	}
	var ops []Op
	for _, seg := range segs {
		data, err := os.ReadFile(segmentPath(d.path, seg))
		if err != nil {
			return nil, 0, fmt.Errorf("read journal segment %d: %w", seg, err)
		}
		ops = append(ops, decodeOps(data)...)
	}
	if len(ops) > 0 {
		if err := d.Apply(ops); err != nil {
			return nil, 0, fmt.Errorf("apply the journal to the database: %w", err)
		}
	}
	next := uint64(1)
	for _, seg := range segs {
		if err := os.Remove(segmentPath(d.path, seg)); err != nil {
			return nil, 0, err
		}
		next = seg + 1
	}
	f, err := os.OpenFile(segmentPath(d.path, next), os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, 0, err
	}
	return &Journal{base: d.path, f: f, seg: next}, len(ops), nil
}

// decodeOps reads entries until the data ends or an entry is torn.
func decodeOps(data []byte) []Op {
	var ops []Op
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 || uint64(len(data)-k) < 4+n {
			break
		}
		sum := binary.LittleEndian.Uint32(data[k:])
		payload := data[k+4 : k+4+int(n)]
		if crc32.Checksum(payload, castagnoli()) != sum {
			break
		}
		op, err := decodeOp(payload)
		if err != nil {
			break
		}
		ops = append(ops, op)
		data = data[k+4+int(n):]
	}
	return ops
}

// appendOp appends op's payload to b.
func appendOp(b []byte, op Op) ([]byte, error) {
	if op.Put != nil {
		rec, err := json.Marshal(op.Put)
		if err != nil {
			return nil, err
		}
		b = append(b, secPut)
		b = appendBytes(b, rec)
	}
	if op.Delete != "" {
		b = append(b, secDelete)
		b = appendBytes(b, []byte(op.Delete))
	}
	if op.SessionID != "" && (len(op.Events) > 0 || op.TrimBelow > 0) {
		b = append(b, secEvents)
		b = appendBytes(b, []byte(op.SessionID))
		b = binary.AppendVarint(b, op.TrimBelow)
		b = binary.AppendUvarint(b, uint64(len(op.Events)))
		for _, ev := range op.Events {
			b = binary.AppendVarint(b, ev.Seq)
			b = appendBytes(b, ev.Frame)
		}
	}
	return b, nil
}

func appendBytes(b, p []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(p))), p...)
}

var errTorn = errors.New("torn journal entry")

func decodeOp(p []byte) (Op, error) {
	var op Op
	r := reader{p: p}
	for !r.done() {
		switch r.byte() {
		case secPut:
			op.Put = &Record{}
			if err := json.Unmarshal(r.bytes(), op.Put); err != nil {
				return op, err
			}
		case secDelete:
			op.Delete = string(r.bytes())
		case secEvents:
			op.SessionID = string(r.bytes())
			op.TrimBelow = r.varint()
			n := r.uvarint()
			for i := uint64(0); i < n && r.err == nil; i++ {
				seq := r.varint()
				op.Events = append(op.Events, Event{Seq: seq, Frame: append([]byte(nil), r.bytes()...)})
			}
		default:
			return op, errTorn
		}
		if r.err != nil {
			return op, r.err
		}
	}
	return op, nil
}

// reader decodes a payload; the first error sticks.
type reader struct {
	p   []byte
	err error
}

func (r *reader) done() bool { return r.err != nil || len(r.p) == 0 }

func (r *reader) byte() byte {
	if len(r.p) == 0 {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	c := r.p[0]
	r.p = r.p[1:]
	return c
}

func (r *reader) uvarint() uint64 {
	v, k := binary.Uvarint(r.p)
	if k <= 0 {
		r.err = errTorn
		return 0
	}
	r.p = r.p[k:]
	return v
}

func (r *reader) varint() int64 {
	v, k := binary.Varint(r.p)
	if k <= 0 {
		r.err = errTorn
		return 0
	}
	r.p = r.p[k:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil || uint64(len(r.p)) < n {
		r.err = errTorn
		return nil
	}
	b := r.p[:n]
	r.p = r.p[n:]
	return b
}
