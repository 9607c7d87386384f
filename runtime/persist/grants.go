package persist

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// originsBucket holds the origins the user approved (issue 22): origin →
// GrantRecord as JSON. A grant is written in its own transaction when the
// user decides, not through the journal: decisions are rare, the user
// waits for one anyway, and a page must not be told "approved" before the
// grant is on disk.
var originsBucket = []byte("origins")

// GrantRecord is one approved origin (runtime/approvals keeps them as
// wire.OriginGrant; persist knows neither).
type GrantRecord struct {
	Origin     string `json:"origin"`
	ApprovedAt int64  `json:"approvedAt"` // unix ms
	By         string `json:"by"`
}

// Grants returns every stored grant; a value that does not decode is
// skipped (it approves nothing).
func (d *DB) Grants() ([]GrantRecord, error) {
	var out []GrantRecord
	err := d.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(originsBucket)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var g GrantRecord
			if json.Unmarshal(v, &g) == nil && g.Origin == string(k) {
				out = append(out, g)
			}
			return nil
		})
	})
	return out, err
}

// SaveGrant writes one grant and commits it before it returns.
func (d *DB) SaveGrant(g GrantRecord) error {
	if g.Origin == "" {
		return fmt.Errorf("a grant needs an origin")
	}
	data, err := json.Marshal(&g)
	if err != nil {
		return err
	}
	return d.bolt.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(originsBucket)
		if err != nil {
			return err
		}
		return b.Put([]byte(g.Origin), data)
	})
}

// DeleteGrant removes origin's grant, if there is one.
func (d *DB) DeleteGrant(origin string) error {
	return d.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(originsBucket)
		if b == nil {
			return nil
		}
		return b.Delete([]byte(origin))
	})
}
