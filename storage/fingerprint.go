package storage

import (
	badger "github.com/dgraph-io/badger/v4"
)

// FingerprintOf returns the fingerprint entry of stored document docID
// (its SimHashes and Jaccard sketch, which the page record does not
// carry). Errors wrap ErrNotFound when docID is not stored.
func (db *DB) FingerprintOf(docID DocID) (Fingerprint, error) {
	var f Fingerprint
	err := db.bdb.View(func(txn *badger.Txn) error {
		var err error
		f, err = get(txn, fpKey(docID), func() string { return "fingerprint of " + docID.String() },
			func(v []byte) (Fingerprint, error) { return decodeFP(docID, v) })
		return err
	})
	return f, err
}
