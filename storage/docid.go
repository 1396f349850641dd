package storage

import (
	"errors"
	"fmt"
	"strconv"
)

// DocID names a stored document. contentdedup assigns the number (a hash
// of the document's first URL and its content fingerprint); storage keys
// every record by it, and everything that shows or reads a docId (the
// query command, the HTTP API, export files) goes through [DocID.String]
// and [ParseDocID], so one spelling is printed and the same one is read
// back everywhere. 0 is not a document id: a URLRecord with DocID 0 has
// no document.
//
// DocID lives in storage rather than in contentdedup because storage and
// contentdedup do not import each other and every reader of a docId
// (cmd, api, crawler, internal/dedupstore) already imports storage;
// contentdedup's Verdict.DocID stays a plain uint64 that its callers
// convert once, where they hand a verdict to the store.
type DocID uint64

// ErrBadDocID is wrapped by ParseDocID's errors.
var ErrBadDocID = errors.New("storage: bad docId")

// String returns id as 16 lowercase hexadecimal digits, zero-padded
// ("00000000000004d2"): the form every command and the API print.
func (id DocID) String() string { return fmt.Sprintf("%016x", uint64(id)) }

// Format makes %s and %v print String() and the integer verbs (%x, %016x,
// %d) print the number, as they did when docIds were plain uint64s (by
// default fmt would apply %x to the String() text).
func (id DocID) Format(f fmt.State, verb rune) {
	switch verb {
	case 's', 'v', 'q':
		fmt.Fprintf(f, fmt.FormatString(f, verb), id.String())
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), uint64(id))
	}
}

// MarshalText writes id.String(), so a DocID field is a JSON string
// (JSON numbers lose precision above 2^53).
func (id DocID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads what ParseDocID reads.
func (id *DocID) UnmarshalText(b []byte) error {
	v, err := ParseDocID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// ParseDocID reads a document id in the one accepted syntax:
//
//   - exactly 16 hexadecimal digits, the printed form ("00000000000004d2"),
//     or
//   - "0x" followed by 1 to 16 hexadecimal digits ("0x4d2").
//
// Letters may be upper or lower case. Anything else, including a decimal
// number and hex shorter than 16 digits without "0x" (is "1234" decimal
// or hex?), is refused rather than guessed at, and so is 0. Errors wrap
// ErrBadDocID and say which form is expected.
func ParseDocID(s string) (DocID, error) {
	h := s
	if len(h) > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X') {
		h = h[2:]
		if len(h) > 16 {
			return 0, badDocID(s)
		}
	} else if len(h) != 16 {
		return 0, badDocID(s)
	}
	v, err := strconv.ParseUint(h, 16, 64) // no sign, no underscores
	if err != nil {
		return 0, badDocID(s)
	}
	if v == 0 {
		return 0, fmt.Errorf("%w %q: 0 is not a document id", ErrBadDocID, s)
	}
	return DocID(v), nil
}

func badDocID(s string) error {
	return fmt.Errorf("%w %q: want 16 hexadecimal digits as printed (e.g. 00000000000004d2) or 0x and 1 to 16 hexadecimal digits (0x4d2); decimal is not accepted", ErrBadDocID, s)
}
