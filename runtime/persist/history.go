package persist

import (
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// historyBucket holds the console's history of ended sessions: key
// createdAt (8 bytes, big endian) + session id, so a cursor walks them
// oldest first; value the session's last console view as JSON (persist
// does not read it). Written in its own small transaction when a session
// ends, not through the journal: a lost entry costs a line of history,
// never a session.
var historyBucket = []byte("history")

func historyKey(createdAt int64, id string) []byte {
	k := make([]byte, 8, 8+len(id))
	binary.BigEndian.PutUint64(k, uint64(createdAt))
	return append(k, id...)
}

// SaveHistory stores one ended session's view and drops the oldest entries
// beyond max, in one transaction.
func (d *DB) SaveHistory(createdAt int64, id string, view []byte, max int) error {
	return d.bolt.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(historyBucket)
		if err != nil {
			return err
		}
		if err := b.Put(historyKey(createdAt, id), view); err != nil {
			return err
		}
		over := -max
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			over++
		}
		for k, _ := c.First(); k != nil && over > 0; k, _ = c.First() {
			if err := c.Delete(); err != nil {
				return err
			}
			over--
		}
		return nil
	})
}

// History returns the stored views, oldest first.
func (d *DB) History() ([][]byte, error) {
	var out [][]byte
	err := d.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(historyBucket)
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, v []byte) error {
			out = append(out, append([]byte(nil), v...))
			return nil
		})
	})
	return out, err
}
