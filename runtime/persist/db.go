// Package persist is Core's durable memory: one bbolt database in the state
// directory holding every live session's record and its bounded event log
// (db.go), the journal that makes each op crash-safe before a page sees it
// (journal.go), the checks that let Core start on whatever a crash left
// (open.go, setaside.go), and the Writer that drives both (writer.go).
// bbolt writes each transaction copy-on-write and flips a meta page last, so
// a process killed at any instant leaves a database that opens with the last
// committed transaction (docs/decisions.md says why bbolt).
//
// It knows nothing of Core: runtime turns its sessions into Records and
// their events into Events, and back after a restart.
package persist

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// FileName is the state database's name in the state directory; its
// journal's segments are named after it (FileName.journal.<n>).
const FileName = "pedelec.db"

var (
	sessionsBucket = []byte("sessions") // session id → Record as JSON
	eventsBucket   = []byte("events")   // session id → bucket of seq (8 bytes BE) → event frame JSON
	// session id → bucket holding skillsKey → the tools and guidance as
	// JSON. Written once, when the session is created, apart from the
	// record that changes with every status: a page's 500 tools are not
	// re-encoded for each of them. A bucket per session, because bbolt keeps
	// a value inside its leaf: sessions' manifests side by side in one leaf
	// were copied (and paged in through the map: Core's RSS) every time a
	// session was added next to them.
	skillsBucket = []byte("skills")
	skillsKey    = []byte("skills")
)

// ErrLocked means another process holds the database: a second `pedelec
// serve` on the same state directory.
var ErrLocked = errors.New("the state database is in use by another pedelec serve")

// DB is the open database and its journal (journal.go).
type DB struct {
	bolt    *bolt.DB
	path    string
	journal *Journal
	// Recovered is what Open found (open.go).
	Recovered Recovery
}

// Journal is where ops go before the database takes them.
func (d *DB) Journal() *Journal { return d.journal }

// Close closes the journal and the database; committed writes are on disk,
// and the journal keeps what was not committed for the next Open.
func (d *DB) Close() error {
	return errors.Join(d.journal.Close(), d.bolt.Close())
}

// Abandon closes the files as a killed process leaves them: what was
// appended to the journal but not yet written is lost, the rest stays for
// the next Open. Crash tests use it to stop a Core mid-flight in-process.
func (d *DB) Abandon() error {
	return errors.Join(d.journal.abandon(), d.bolt.Close())
}

// Record is what Core keeps of one session between runs. The agent secret
// is not kept: a restored session gets a new one, and the processes that
// knew the old one are gone.
type Record struct {
	ID                  string          `json:"id"`
	Origin              string          `json:"origin"`
	Provider            string          `json:"provider"`
	Model               string          `json:"model,omitempty"`
	Skills              json.RawMessage `json:"skills,omitempty"` // tools and guidance as the page sent them (validated); stored in skillsBucket
	AutoEndOnDisconnect bool            `json:"autoEndOnDisconnect"`
	DisconnectGraceMs   int64           `json:"disconnectGraceMs,omitempty"` // a following page's grace (create_session's)
	Status              string          `json:"status"`
	Seq                 int64           `json:"seq"`
	Primed              bool            `json:"primed,omitempty"`
	ProviderThread      string          `json:"providerThread,omitempty"` // the provider's own id for resuming
	LastTurnFailed      bool            `json:"lastTurnFailed,omitempty"`
	Turn                *TurnRecord     `json:"turn,omitempty"`          // the turn running when this was written
	Pending             []PendingRecord `json:"pending,omitempty"`       // calls of Turn waiting on the page
	ProviderState       json.RawMessage `json:"providerState,omitempty"` // an in-process provider's conversation (openai)
	CreatedAt           int64           `json:"createdAt"`               // unix ms
	UpdatedAt           int64           `json:"updatedAt"`               // unix ms
}

// TurnRecord is the turn a session was running.
type TurnRecord struct {
	ID        string `json:"id"`
	StartedAt int64  `json:"startedAt"` // unix ms
	Warmup    bool   `json:"warmup,omitempty"`
}

// PendingRecord is one call the page had not answered yet.
type PendingRecord struct {
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	TurnID string `json:"turnId,omitempty"` // empty for an MCP client's call
}

// Event is one logged event frame.
type Event struct {
	Seq   int64
	Frame []byte // the whole JSON frame as sent
}

// Op is one write; Apply runs a batch of them in one transaction, in order.
type Op struct {
	Put       *Record // write this record
	Delete    string  // remove the session and its events
	SessionID string  // for Events and TrimBelow
	Events    []Event // append to SessionID's log
	TrimBelow int64   // drop SessionID's events with seq < TrimBelow (0: none)
}

// Apply writes ops in one transaction: all or none. Ops with nothing to
// write cost no transaction.
func (d *DB) Apply(ops []Op) error {
	writes := false
	for _, op := range ops {
		writes = writes || op.Put != nil || op.Delete != "" || len(op.Events) > 0 || op.TrimBelow > 0
	}
	if !writes {
		return nil
	}
	return d.bolt.Update(func(tx *bolt.Tx) error {
		sessions, events, skills := tx.Bucket(sessionsBucket), tx.Bucket(eventsBucket), tx.Bucket(skillsBucket)
		for _, op := range ops {
			if op.Put != nil {
				rec := *op.Put
				if rec.Skills != nil {
					b, err := skills.CreateBucketIfNotExists([]byte(rec.ID))
					if err != nil {
						return err
					}
					if err := b.Put(skillsKey, rec.Skills); err != nil {
						return err
					}
					rec.Skills = nil
				}
				data, err := json.Marshal(&rec)
				if err != nil {
					return err
				}
				if err := sessions.Put([]byte(rec.ID), data); err != nil {
					return err
				}
			}
			if op.Delete != "" {
				if err := sessions.Delete([]byte(op.Delete)); err != nil {
					return err
				}
				if skills.Bucket([]byte(op.Delete)) != nil {
					if err := skills.DeleteBucket([]byte(op.Delete)); err != nil {
						return err
					}
				}
				if events.Bucket([]byte(op.Delete)) != nil {
					if err := events.DeleteBucket([]byte(op.Delete)); err != nil {
						return err
					}
				}
			}
			if op.SessionID != "" && (len(op.Events) > 0 || op.TrimBelow > 0) {
				log, err := events.CreateBucketIfNotExists([]byte(op.SessionID))
				if err != nil {
					return err
				}
				for _, ev := range op.Events {
					if err := log.Put(seqKey(ev.Seq), ev.Frame); err != nil {
						return err
					}
				}
				if op.TrimBelow > 0 {
					c := log.Cursor()
					for k, _ := c.First(); k != nil && int64(binary.BigEndian.Uint64(k)) < op.TrimBelow; k, _ = c.Next() {
						if err := c.Delete(); err != nil {
							return err
						}
					}
				}
			}
		}
		return nil
	})
}

// Sessions returns every stored record.
func (d *DB) Sessions() ([]Record, error) {
	var out []Record
	err := d.bolt.View(func(tx *bolt.Tx) error {
		return tx.Bucket(sessionsBucket).ForEach(func(k, v []byte) error {
			if v == nil {
				return nil // a nested bucket, not a record
			}
			r, err := decodeRecord(k, v)
			if err != nil {
				return fmt.Errorf("session record %q: %w", k, err)
			}
			if b := tx.Bucket(skillsBucket).Bucket(k); b != nil {
				r.Skills = append(json.RawMessage(nil), b.Get(skillsKey)...)
			}
			out = append(out, r)
			return nil
		})
	})
	return out, err
}

// Events returns a session's logged events, oldest first.
func (d *DB) Events(sessionID string) ([]Event, error) {
	var out []Event
	err := d.bolt.View(func(tx *bolt.Tx) error {
		log := tx.Bucket(eventsBucket).Bucket([]byte(sessionID))
		if log == nil {
			return nil
		}
		return log.ForEach(func(k, v []byte) error {
			if ev, ok := decodeEvent(k, v); ok {
				out = append(out, ev)
			}
			return nil
		})
	})
	return out, err
}

// Check walks every page of the database and reports the first
// inconsistency; a crash test uses it to prove the file is whole.
func (d *DB) Check() error {
	return d.bolt.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
}

// decodeRecord reads the record stored under key k: whole JSON, and an id
// that is its key and can name a directory (runtime puts each session's
// work under sessions/<id>).
func decodeRecord(k, v []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(v, &r); err != nil {
		return r, err
	}
	if r.ID != string(k) || !validID(r.ID) {
		return r, fmt.Errorf("the record's id %q is not its key %q or is no session id", r.ID, k)
	}
	return r, nil
}

// decodeEvent reads one logged event; one whose key is not a seq or whose
// frame is not JSON is not one Core wrote, and is left out: a page is sent
// logged frames as they are.
func decodeEvent(k, v []byte) (Event, bool) {
	if len(k) != 8 || !json.Valid(v) {
		return Event{}, false
	}
	seq := int64(binary.BigEndian.Uint64(k))
	if seq <= 0 {
		return Event{}, false
	}
	return Event{Seq: seq, Frame: append([]byte(nil), v...)}, true
}

// validID reports whether id can be a session's key and directory name:
// 1-128 letters, digits, '_' or '-' (Core's own ids are s_ and base32).
func validID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func seqKey(seq int64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, uint64(seq))
	return k
}
