package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseDocID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want DocID  // 0: an error is expected
		msg  string // part of the error
	}{
		{in: "00000000000004d2", want: 0x4d2},
		{in: "0x4d2", want: 0x4d2},
		{in: "0X4D2", want: 0x4d2},
		{in: "0x00000000000004d2", want: 0x4d2},
		{in: "fedcba9876543210", want: 0xfedcba9876543210},
		{in: "FEDCBA9876543210", want: 0xfedcba9876543210},
		{in: "0xffffffffffffffff", want: 0xffffffffffffffff},
		// 1234 was 0x4d2 on the command line (decimal) and 0x1234 over
		// HTTP (short hex); now it is neither, and the error says what to
		// write.
		{in: "1234", msg: `storage: bad docId "1234": want 16 hexadecimal digits as printed (e.g. 00000000000004d2) or 0x and 1 to 16 hexadecimal digits (0x4d2); decimal is not accepted`},
		{in: "17293822569102704643", msg: "decimal is not accepted"}, // 0xf000000000000003 in decimal
		{in: "", msg: "want 16 hexadecimal digits"},
		{in: "0x", msg: "want 16 hexadecimal digits"},
		{in: "0x00000000000004d2a", msg: "want 16 hexadecimal digits"},
		{in: "00000000000004d2a", msg: "want 16 hexadecimal digits"},
		{in: "00000000000004g2", msg: "want 16 hexadecimal digits"},
		{in: "+0000000000004d2", msg: "want 16 hexadecimal digits"},
		{in: "0000_0000_0000_4d", msg: "want 16 hexadecimal digits"},
		{in: " 00000000000004d2", msg: "want 16 hexadecimal digits"},
		{in: "0000000000000000", msg: `bad docId "0000000000000000": 0 is not a document id`},
		{in: "0x0", msg: "0 is not a document id"},
	} {
		got, err := ParseDocID(tc.in)
		if tc.want != 0 {
			if err != nil || got != tc.want {
				t.Errorf("ParseDocID(%q) = %#x, %v; want %#x", tc.in, uint64(got), err, uint64(tc.want))
			}
			continue
		}
		if !errors.Is(err, ErrBadDocID) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseDocID(%q) = %#x, %v; want an ErrBadDocID containing %q", tc.in, uint64(got), err, tc.msg)
		}
	}
}

func TestDocIDPrint(t *testing.T) {
	id := DocID(0x4d2)
	for _, tc := range []struct{ got, want string }{
		{id.String(), "00000000000004d2"},
		{fmt.Sprint(id), "00000000000004d2"},
		{fmt.Sprintf("%s|%v|%q", id, id, id), `00000000000004d2|00000000000004d2|"00000000000004d2"`},
		// The integer verbs still print the number (fmt would otherwise
		// apply them to the String text).
		{fmt.Sprintf("%016x|%x|%d|%#x", id, id, id, id), "00000000000004d2|4d2|1234|0x4d2"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
	b, err := json.Marshal(struct {
		ID DocID `json:"doc_id"`
		No DocID `json:"none,omitempty"`
	}{ID: 0xfedcba9876543210})
	if err != nil || string(b) != `{"doc_id":"fedcba9876543210"}` {
		t.Errorf("JSON = %s, %v", b, err)
	}
	var back struct {
		ID DocID `json:"doc_id"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.ID != 0xfedcba9876543210 {
		t.Errorf("JSON round trip = %v, %v", back.ID, err)
	}
	if err := json.Unmarshal([]byte(`{"doc_id":"1234"}`), &back); !errors.Is(err, ErrBadDocID) {
		t.Errorf("JSON docId 1234: err = %v, want ErrBadDocID", err)
	}
}

// FuzzDocID checks the round trip both ways: every non-zero id prints as
// 16 hex digits that parse back to it (and so does its 0x form), and any
// string that parses prints back to the same number.
func FuzzDocID(f *testing.F) {
	for _, s := range []string{"00000000000004d2", "1234", "0x4d2", "0", "fedcba9876543210", "0xFFFFFFFFFFFFFFFF", "xyz"} {
		f.Add(s, uint64(len(s))*0x9e3779b97f4a7c15)
	}
	f.Fuzz(func(t *testing.T, s string, n uint64) {
		if n != 0 {
			id := DocID(n)
			if got, err := ParseDocID(id.String()); err != nil || got != id {
				t.Fatalf("ParseDocID(%q) = %v, %v; want %v", id.String(), got, err, id)
			}
			if got, err := ParseDocID(fmt.Sprintf("0x%x", n)); err != nil || got != id {
				t.Fatalf("ParseDocID(0x%x) = %v, %v", n, got, err)
			}
			if len(id.String()) != 16 {
				t.Fatalf("String() = %q, want 16 digits", id.String())
			}
		}
		id, err := ParseDocID(s)
		if err != nil {
			if !errors.Is(err, ErrBadDocID) {
				t.Fatalf("ParseDocID(%q): error %v does not wrap ErrBadDocID", s, err)
			}
			return
		}
		if id == 0 {
			t.Fatalf("ParseDocID(%q) = 0 without an error", s)
		}
		if again, err := ParseDocID(id.String()); err != nil || again != id {
			t.Fatalf("ParseDocID(%q) = %v, but its String does not parse back: %v, %v", s, id, again, err)
		}
		digits := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
		if !strings.EqualFold(fmt.Sprintf("%0*x", len(digits), uint64(id)), digits) {
			t.Fatalf("ParseDocID(%q) = %v: the digits differ", s, id)
		}
	})
}
