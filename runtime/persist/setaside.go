package persist

import (
	"errors"
	"os"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// What Open cannot read is moved aside, never deleted: it may be the
// user's only copy of a conversation, and a newer pedelec or a person may
// read it.

// setAsideRecords moves records that do not decode into the setAside
// bucket, as they were, and drops what belonged to them.
func (d *DB) setAsideRecords(ids []string, now time.Time) error {
	return guard("setting records aside", func() error {
		return d.bolt.Update(func(tx *bolt.Tx) error {
			sessions, aside := tx.Bucket(sessionsBucket), tx.Bucket(setAsideBucket)
			for _, id := range ids {
				key := []byte(id + " " + now.UTC().Format(time.RFC3339Nano))
				if err := aside.Put(key, sessions.Get([]byte(id))); err != nil {
					return err
				}
				if err := sessions.Delete([]byte(id)); err != nil {
					return err
				}
				for _, name := range [][]byte{skillsBucket, eventsBucket} {
					if b := tx.Bucket(name); b.Bucket([]byte(id)) != nil {
						if err := b.DeleteBucket([]byte(id)); err != nil {
							return err
						}
					}
				}
			}
			return nil
		})
	})
}

// setAsideDatabase moves the database and its journal's segments aside.
func setAsideDatabase(path string, now time.Time) ([]string, error) {
	aside, err := setAside(path, now)
	if err != nil {
		return nil, err
	}
	moved := []string{aside}
	segs, err := segments(path)
	if err != nil {
		return moved, err
	}
	for _, seg := range segs {
		aside, err := setAside(segmentPath(path, seg), now)
		if err != nil {
			return moved, err
		}
		moved = append(moved, aside)
	}
	return moved, nil
}

// setAside renames path to path.unreadable-<time>, never over another
// file, and returns the new name.
func setAside(path string, now time.Time) (string, error) {
	base := path + ".unreadable-" + now.UTC().Format("20060102T150405Z")
	aside := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, os.ErrNotExist) {
			break
		}
		aside = base + "-" + strconv.Itoa(i)
	}
	return aside, os.Rename(path, aside)
}
