package persist

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/log"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Core starts whatever is in its state directory. A database or a journal
// segment a crash, a bad disk, a half-copied backup or another program
// left is read as far as it can be; a file that cannot be read is moved
// aside under a name with the time, never deleted, and Open says in its
// Recovery what it kept and what it set aside. Only a file of a newer
// format than this binary's is refused: guessing at it could lose what the
// newer pedelec wrote.

// FormatVersion is the format of the database and the journal this binary
// writes, and the newest it reads. Files from before the version was
// written down (a segment without a header, a database without its meta
// bucket) are version 1: the same format.
const FormatVersion = 1

var (
	metaBucket = []byte("meta") // formatKey → FormatVersion in decimal
	formatKey  = []byte("format")
	// "<id> <time>" → a session record that did not decode, as it was
	setAsideBucket = []byte("setAside")
)

// maxSegmentBytes bounds what Open reads of one journal segment. A segment
// holds one batch of the database's writes (4,096 ops at most); one this
// large was not written by Core, and reading it could take all memory at
// every start.
const maxSegmentBytes = 1 << 30

// NewerFormatError is a file written by a newer pedelec.
type NewerFormatError struct {
	Path    string
	Version uint64
}

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("%s was written by a newer pedelec (format version %d; this one reads up to version %d): "+
		"use the newer pedelec, or move the file aside to start without what it holds", e.Path, e.Version, FormatVersion)
}

// Recovery is what Open found: what it kept, and what it could not read.
type Recovery struct {
	Sessions   int      // session records kept
	Replayed   int      // journal ops applied to the database
	SkippedOps int      // journal entries that did not decode
	SetAside   []string // files moved aside, by their new paths
	BadRecords []string // ids of records that did not decode, kept in the database's setAside bucket
	// Unreadable says why the database itself was set aside ("" when not).
	Unreadable string
	// CompactedFrom and CompactedTo are the file's sizes before and after
	// start-up compacted it (compact.go); 0 when it did not.
	CompactedFrom, CompactedTo int64
}

// Damaged reports whether anything could not be read.
func (r Recovery) Damaged() bool {
	return r.SkippedOps > 0 || len(r.SetAside) > 0 || len(r.BadRecords) > 0
}

// Log says in one line what start-up could not read in the state
// directory, what it kept, and where the rest went; nothing when all was
// read.
func (r Recovery) Log(logger *log.Logger) {
	if r.CompactedFrom > 0 {
		logger.Info("state database compacted: it had grown past what it holds", "from", r.CompactedFrom, "to", r.CompactedTo)
	}
	if !r.Damaged() {
		return
	}
	kv := []any{"keptSessions", r.Sessions, "keptJournalOps", r.Replayed}
	if r.Unreadable != "" {
		kv = append(kv, "unreadableDatabase", r.Unreadable)
	}
	if r.SkippedOps > 0 {
		kv = append(kv, "skippedJournalOps", r.SkippedOps)
	}
	if len(r.BadRecords) > 0 {
		kv = append(kv, "setAsideRecords", strings.Join(r.BadRecords, ","))
	}
	if len(r.SetAside) > 0 {
		kv = append(kv, "setAsideFiles", strings.Join(r.SetAside, ","))
	}
	logger.Warn("state directory: what could not be read was set aside (moved, not deleted); the rest was restored", kv...)
}

// unreadableError is a database file Open cannot use as it is.
type unreadableError struct{ why string }

func (e *unreadableError) Error() string { return e.why }

// Open opens (creating) the database at path, applies the journal a
// previous Core left, and reports in d.Recovered what it found. It waits
// at most lockWait for another process to let go of the database. A
// database it cannot read is set aside, with its journal (changes to it),
// and a new one is started.
func Open(path string, lockWait time.Duration) (*DB, error) {
	now := time.Now()
	before, after, compacted := compactIfBloated(path, lockWait)
	d, err := open(path, lockWait, now)
	if err == nil && compacted {
		d.Recovered.CompactedFrom, d.Recovered.CompactedTo = before, after
	}
	var bad *unreadableError
	if !errors.As(err, &bad) {
		return d, err
	}
	moved, merr := setAsideDatabase(path, now)
	if merr != nil {
		return nil, fmt.Errorf("state database %s cannot be read (%v), and moving it aside failed: %w", path, bad, merr)
	}
	if d, err = open(path, lockWait, now); err != nil {
		return nil, err
	}
	d.Recovered.Unreadable = bad.why
	d.Recovered.SetAside = append(moved, d.Recovered.SetAside...)
	return d, nil
}

// open is Open without setting the database aside: it returns an
// *unreadableError for a database that cannot be used.
func open(path string, lockWait time.Duration, now time.Time) (*DB, error) {
	b, err := openBolt(path, lockWait)
	if err != nil {
		return nil, err
	}
	d := &DB{bolt: b, path: path}
	fail := func(err error) (*DB, error) {
		b.Close()
		return nil, err
	}
	if err := d.prepare(); err != nil {
		return fail(err)
	}
	bad, n, err := d.scan()
	if err != nil {
		return fail(err)
	}
	if len(bad) > 0 {
		if err := d.setAsideRecords(bad, now); err != nil {
			return fail(err)
		}
	}
	d.Recovered.Sessions, d.Recovered.BadRecords = n, bad
	if d.journal, err = d.replayJournal(now); err != nil {
		return fail(err)
	}
	return d, nil
}

// guard runs f, turning a panic into an unreadableError. bbolt trusts the
// file it maps: a damaged page panics in it, and a page past the end of a
// truncated file is a SIGBUS, which SetPanicOnFault makes a panic too.
func guard(what string, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = &unreadableError{why: fmt.Sprintf("%s: %v", what, p)}
		}
	}()
	return f()
}

// openBolt opens the bbolt file at path, or says why it cannot.
func openBolt(path string, lockWait time.Duration) (*bolt.DB, error) {
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		// A directory, a link (never followed out of the state
		// directory), a FIFO (opening it would wait forever).
		return nil, &unreadableError{why: fmt.Sprintf("not a regular file (%s)", info.Mode().Type())}
	}
	var file *os.File
	var b *bolt.DB
	err := guard("opening it", func() error {
		var err error
		b, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: lockWait, OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			file = f
			return f, err
		}})
		return err
	})
	var bad *unreadableError
	switch {
	case errors.As(err, &bad):
		// bbolt panicked half-way: its file (and lock) is closed here; its
		// map of the file stays until the process exits.
		if file != nil {
			file.Close()
		}
		return nil, err
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("%w (%s)", ErrLocked, path)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		return nil, &unreadableError{why: "not a pedelec state database (" + err.Error() + ")"}
	case err != nil && strings.Contains(err.Error(), "file size too small"):
		// A file cut short after its meta pages (4,096 to 8,191 bytes
		// with 4 KiB pages): bbolt's error for it has no value to match.
		return nil, &unreadableError{why: "cut short (" + err.Error() + ")"}
	case err != nil:
		return nil, fmt.Errorf("open state database %s: %w", path, err)
	}
	return b, nil
}

// prepare checks the format version and makes the buckets.
func (d *DB) prepare() error {
	var version uint64
	err := guard("reading its format version", func() error {
		return d.bolt.View(func(tx *bolt.Tx) error {
			if meta := tx.Bucket(metaBucket); meta != nil {
				v := meta.Get(formatKey)
				n, err := strconv.ParseUint(string(v), 10, 64)
				if err != nil || n == 0 {
					return &unreadableError{why: fmt.Sprintf("its format version %q is not one", v)}
				}
				version = n
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	if version > FormatVersion {
		return &NewerFormatError{Path: d.path, Version: version}
	}
	return guard("preparing it", func() error {
		return d.bolt.Update(func(tx *bolt.Tx) error {
			for _, name := range [][]byte{sessionsBucket, eventsBucket, skillsBucket, setAsideBucket, metaBucket, originsBucket} {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return &unreadableError{why: fmt.Sprintf("bucket %s: %v", name, err)}
				}
			}
			if version == 0 {
				return tx.Bucket(metaBucket).Put(formatKey, []byte(strconv.Itoa(FormatVersion)))
			}
			return nil
		})
	})
}

// scan reads every page Core will read, so that damage shows now, as a
// file set aside, and not later as a panic. It returns the ids of records
// that do not decode and how many do.
func (d *DB) scan() (bad []string, good int, err error) {
	var sum byte
	defer func() { runtime.KeepAlive(sum) }()
	err = guard("reading it", func() error {
		return d.bolt.View(func(tx *bolt.Tx) error {
			err := tx.Bucket(sessionsBucket).ForEach(func(k, v []byte) error {
				if v == nil {
					return nil // a nested bucket: never written by Core, never read
				}
				touch(v, &sum)
				if _, err := decodeRecord(k, v); err != nil {
					bad = append(bad, string(k))
				} else {
					good++
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, name := range [][]byte{skillsBucket, eventsBucket} {
				if err := touchAll(tx.Bucket(name), &sum); err != nil {
					return err
				}
			}
			return nil
		})
	})
	return bad, good, err
}

// touchAll reads every key and every page of every value under b.
func touchAll(b *bolt.Bucket, sum *byte) error {
	return b.ForEach(func(k, v []byte) error {
		if v == nil {
			if nested := b.Bucket(k); nested != nil {
				return touchAll(nested, sum)
			}
		}
		touch(v, sum)
		return nil
	})
}

// touch reads a byte of each page v spans: a value's bytes are in the
// map, not yet read, and a page of them past the end of a truncated file
// faults only when read. The sum keeps the reads from being optimised away.
func touch(v []byte, sum *byte) {
	for i := 0; i < len(v); i += 4096 {
		*sum ^= v[i]
	}
	if len(v) > 0 {
		*sum ^= v[len(v)-1]
	}
}

// replayJournal applies the ops of every segment a previous Core left to
// the database, in order, then removes the segments it read whole, sets
// aside the others, and starts a fresh journal.
func (d *DB) replayJournal(now time.Time) (*Journal, error) {
	segs, err := segments(d.path)
	if err != nil {
		return nil, err
	}
	var ops []Op
	done := map[uint64]bool{} // read whole: removed once applied
	for _, seg := range segs {
		path := segmentPath(d.path, seg)
		data, err := readSegment(path)
		if err == nil {
			var s segment
			if s, err = decodeSegment(path, data); err != nil {
				return nil, err // a newer format
			}
			ops = append(ops, s.ops...)
			d.Recovered.SkippedOps += s.skipped
			done[seg] = s.intact
		}
	}
	if err := d.applyReplay(ops); err != nil {
		return nil, err
	}
	next := uint64(1)
	for _, seg := range segs {
		next = seg + 1
		path := segmentPath(d.path, seg)
		if done[seg] {
			if err := os.Remove(path); err != nil {
				return nil, err
			}
			continue
		}
		aside, err := setAside(path, now)
		if err != nil {
			return nil, fmt.Errorf("journal segment %s cannot be read whole, and moving it aside failed: %w", path, err)
		}
		d.Recovered.SetAside = append(d.Recovered.SetAside, aside)
	}
	f, err := createSegment(d.path, next)
	if err != nil {
		return nil, err
	}
	return &Journal{base: d.path, f: f, seg: next}, nil
}

// readSegment reads a segment that is a regular file of a sane size.
func readSegment(path string) ([]byte, error) {
	info, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, err
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", path)
	case info.Size() > maxSegmentBytes:
		return nil, fmt.Errorf("%s is %d bytes", path, info.Size())
	}
	return os.ReadFile(path)
}

// applyReplay applies the journal's ops in one transaction, or, when that
// fails, one by one, skipping those the database refuses: one bad op does
// not cost the others.
func (d *DB) applyReplay(ops []Op) error {
	if len(ops) == 0 {
		return nil
	}
	if err := guard("applying its journal", func() error { return d.Apply(ops) }); err == nil {
		d.Recovered.Replayed = len(ops)
		return nil
	} else if _, panicked := err.(*unreadableError); panicked {
		return err
	}
	for _, op := range ops {
		err := guard("applying its journal", func() error { return d.Apply([]Op{op}) })
		if _, panicked := err.(*unreadableError); panicked {
			return err
		}
		if err != nil {
			d.Recovered.SkippedOps++
		} else {
			d.Recovered.Replayed++
		}
	}
	return nil
}
