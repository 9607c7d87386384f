package persist

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
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
// A segment starts with a header that names its format version
// (journal_decode.go). Each op is then one entry: uvarint length, CRC-32C
// of the payload (4 bytes, little endian), payload. A torn or corrupt
// entry ends the replay of its segment: whatever follows it was never
// written whole (the segment is then set aside, not removed: open.go).

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
	f, oerr := createSegment(j.base, j.seg)
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
		empty = info.Size() <= int64(len(segmentHeader()))
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

// createSegment starts segment seg with its header.
func createSegment(base string, seg uint64) (*os.File, error) {
	f, err := os.OpenFile(segmentPath(base, seg), os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(segmentHeader()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
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
			// Only the name segmentPath gives the number: "07" is not
			// segment 7, which Open would then fail to remove by its name.
			if seg, err := strconv.ParseUint(n, 10, 64); err == nil && strconv.FormatUint(seg, 10) == n {
				segs = append(segs, seg)
			}
		}
	}
	sort.Slice(segs, func(a, b int) bool { return segs[a] < segs[b] })
	return segs, nil
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
