package persist

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// A journal segment is read as whatever a crash, a bad disk or another
// program left in it: nothing in it can make the decoder panic or loop,
// an entry whose frame is whole but whose payload does not decode costs
// only that entry, and a torn or corrupt frame ends the segment (what
// follows it cannot be found). The caller learns whether every byte was
// read, to set the segment aside when not.

// segmentMagic starts a segment's header; the format version follows as a
// uvarint. In the format before the header (version 1 without one) a
// segment began with an entry, and the zero byte would be an empty entry
// whose CRC is 00000000, never "PDLJ": the two cannot be taken for each other.
const segmentMagic = "\x00PDLJ"

// segmentHeader is what a new segment starts with.
func segmentHeader() []byte {
	return binary.AppendUvarint([]byte(segmentMagic), FormatVersion)
}

// segment is what decodeSegment read from one segment.
type segment struct {
	ops     []Op
	version uint64
	skipped int  // entries whose frame was whole but whose payload did not decode
	intact  bool // every byte was read into an op
}

// decodeSegment reads one segment. Its only error is a *NewerFormatError
// (path names the file in it): ops of a format this binary does not know
// are not guessed at.
func decodeSegment(path string, data []byte) (segment, error) {
	seg := segment{version: 1}
	if rest, ok := cutPrefix(data, segmentMagic); ok {
		v, k := binary.Uvarint(rest)
		switch {
		case k <= 0 || v == 0:
			return seg, nil // a header that is not one: nothing here is trusted
		case v > FormatVersion:
			return seg, &NewerFormatError{Path: path, Version: v}
		}
		seg.version, data = v, rest[k:]
	}
	seg.ops, seg.skipped, seg.intact = decodeOps(data)
	return seg, nil
}

func cutPrefix(data []byte, prefix string) ([]byte, bool) {
	if len(data) < len(prefix) || string(data[:len(prefix)]) != prefix {
		return data, false
	}
	return data[len(prefix):], true
}

// decodeOps reads entries until the data ends or a frame is torn. It
// reports the entries it had to skip, and whether it read every byte.
func decodeOps(data []byte) (ops []Op, skipped int, intact bool) {
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		// n is compared with what is left, never added to: a length near
		// 2^64 wrapped "4+n" round to a small number and sliced past the end.
		if k <= 0 || len(data)-k < 4 || n > uint64(len(data)-k-4) {
			return ops, skipped, false
		}
		sum := binary.LittleEndian.Uint32(data[k:])
		payload := data[k+4 : k+4+int(n)]
		if crc32.Checksum(payload, castagnoli()) != sum {
			return ops, skipped, false
		}
		data = data[k+4+int(n):]
		op, err := decodeOp(payload)
		if err != nil {
			skipped++
			continue
		}
		ops = append(ops, op)
	}
	return ops, skipped, skipped == 0
}

var errTorn = errors.New("torn journal entry")

// decodeOp decodes one entry's payload. An op the database could not take
// (an id that is no key) is an error here, so that one bad entry cannot
// fail the replay of all the others.
func decodeOp(p []byte) (Op, error) {
	var op Op
	r := reader{p: p}
	for !r.done() {
		switch tag := r.byte(); tag {
		case secPut:
			op.Put = &Record{}
			if err := json.Unmarshal(r.bytes(), op.Put); err != nil {
				return op, err
			}
			if !validID(op.Put.ID) {
				return op, fmt.Errorf("a record with the id %q", op.Put.ID)
			}
		case secDelete:
			if op.Delete = string(r.bytes()); !validID(op.Delete) {
				return op, fmt.Errorf("a delete of the id %q", op.Delete)
			}
		case secEvents:
			if op.SessionID = string(r.bytes()); !validID(op.SessionID) {
				return op, fmt.Errorf("events of the id %q", op.SessionID)
			}
			op.TrimBelow = r.varint()
			n := r.uvarint()
			for i := uint64(0); i < n && r.err == nil; i++ {
				seq := r.varint()
				op.Events = append(op.Events, Event{Seq: seq, Frame: append([]byte(nil), r.bytes()...)})
			}
		default:
			return op, fmt.Errorf("unknown section %q", tag)
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
