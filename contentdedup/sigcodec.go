package contentdedup

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// SignatureBytes is the size of a Signature's binary form without a
// sketch; with one it is SignatureBytes+SketchBytes.
const SignatureBytes = 17

// MarshalBinary returns sig as 8 bytes of title fingerprint, 8 of content
// fingerprint (big-endian), 1 of flags, then the sketch's SketchBytes
// bytes when it has one. It never fails.
func (sig Signature) MarshalBinary() ([]byte, error) {
	b := make([]byte, SignatureBytes, SignatureBytes+SketchBytes)
	binary.BigEndian.PutUint64(b[0:], sig.Title)
	binary.BigEndian.PutUint64(b[8:], sig.Content)
	b[16] = sig.Flags
	if !sig.Sketch.IsZero() {
		b = append(b, sig.Sketch[:]...)
	}
	return b, nil
}

// UnmarshalBinary reads the form MarshalBinary writes; other lengths are
// an error.
func (sig *Signature) UnmarshalBinary(b []byte) error {
	if len(b) != SignatureBytes && len(b) != SignatureBytes+SketchBytes {
		return fmt.Errorf("%w: %d bytes (want %d or %d)", errSignature, len(b), SignatureBytes, SignatureBytes+SketchBytes)
	}
	*sig = Signature{Title: binary.BigEndian.Uint64(b[0:]), Content: binary.BigEndian.Uint64(b[8:]), Flags: b[16]}
	if len(b) > SignatureBytes {
		sk, err := SketchFromBytes(b[SignatureBytes:])
		if err != nil {
			return err
		}
		sig.Sketch = sk
	}
	return nil
}

var errSignature = errors.New("contentdedup: malformed signature")
