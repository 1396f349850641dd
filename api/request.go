package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// Request is one document submitted to the docId service.
//
// Title or Content (or both) must be non-blank, and URL must be an absolute
// http(s) URL: it is the key the document is recorded under. Category, Media
// and ImageCount are accepted as the docId service's original clients send them (strings or numbers) and
// are not used by the dedup decision. ID is the caller's own identifier (the
// seed's "nid"); it is copied to the [Response] unchanged, whatever its JSON
// type.
type Request struct {
	ID         json.RawMessage `json:"id,omitempty"`
	URL        string          `json:"url"`
	Title      string          `json:"title"`
	Content    string          `json:"content"`
	Category   string          `json:"category,omitempty"`
	Media      string          `json:"media,omitempty"`
	ImageCount int             `json:"imageCount,omitempty"`
}

// Response is the answer to one [Request].
//
// On success Status is "success", DocID is the document id (16 lowercase hex
// digits), FilterStatus is "good" for a new document or "duplicate", and
// FilterReason says which step of the cascade decided: "new", "url" (this URL
// was seen before), "title" or "content" (a near-duplicate by fingerprint).
// MatchURL and Distance describe the document matched. On failure Status is
// "error", Error says what was wrong and the other fields are empty.
type Response struct {
	ID           json.RawMessage `json:"id,omitempty"`
	DocID        string          `json:"docId,omitempty"`
	FilterStatus string          `json:"filterStatus,omitempty"`
	FilterReason string          `json:"filterReason,omitempty"`
	MatchURL     string          `json:"matchUrl,omitempty"`
	Distance     *int            `json:"distance,omitempty"`
	Status       string          `json:"status"`
	Error        string          `json:"error,omitempty"`

	code int // HTTP status for a single request; 0 = 200
}

// Values of Response.Status and Response.FilterStatus.
const (
	StatusSuccess   = "success"
	StatusError     = "error"
	FilterGood      = "good"
	FilterDuplicate = "duplicate"
)

// UnmarshalJSON implements json.Unmarshaler. It accepts category and media
// as strings or numbers (the original clients send "category": "0", clients send 0 as
// often), and imageCount as an integer or its decimal string ("4"); null is
// the zero value. Errors name the field.
func (r *Request) UnmarshalJSON(b []byte) error {
	var w struct {
		ID         json.RawMessage `json:"id"`
		URL        *string         `json:"url"`
		Title      *string         `json:"title"`
		Content    *string         `json:"content"`
		Category   json.RawMessage `json:"category"`
		Media      json.RawMessage `json:"media"`
		ImageCount json.RawMessage `json:"imageCount"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Request{ID: w.ID}
	if string(w.ID) == "null" {
		r.ID = nil
	}
	if w.URL != nil {
		r.URL = *w.URL
	}
	if w.Title != nil {
		r.Title = *w.Title
	}
	if w.Content != nil {
		r.Content = *w.Content
	}
	var err error
	if r.Category, err = looseString(w.Category); err != nil {
		return fieldError{"category", err}
	}
	if r.Media, err = looseString(w.Media); err != nil {
		return fieldError{"media", err}
	}
	if r.ImageCount, err = looseInt(w.ImageCount); err != nil {
		return fieldError{"imageCount", err}
	}
	return nil
}

// fieldError is a well-formed JSON value of the wrong kind for its field.
type fieldError struct {
	field string
	err   error
}

func (e fieldError) Error() string { return "field " + e.field + ": " + e.err.Error() }

func looseString(b json.RawMessage) (string, error) {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		return "", nil
	case b[0] == '"':
		var v string
		err := json.Unmarshal(b, &v)
		return v, err
	case b[0] == '{' || b[0] == '[':
		return "", errors.New("want a string or a number, got an object or array")
	default: // a number or a boolean, already validated by the decoder
		return string(b), nil
	}
}

func looseInt(b json.RawMessage) (int, error) {
	b = bytes.TrimSpace(b)
	text := string(b)
	if len(b) == 0 || text == "null" {
		return 0, nil
	}
	if b[0] == '"' {
		if err := json.Unmarshal(b, &text); err != nil {
			return 0, err
		}
		if text = strings.TrimSpace(text); text == "" {
			return 0, nil
		}
	}
	v, err := strconv.Atoi(text)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("want a non-negative integer, got %s", b)
	}
	return v, nil
}

// MaxURLBytes is the longest Request.URL accepted (the store refuses keys
// much longer; real article URLs are far shorter).
const MaxURLBytes = 8 << 10

// Validate reports what is wrong with r, naming the field, or nil.
func (r *Request) Validate() error {
	_, err := r.canonicalURL()
	if err != nil {
		return err
	}
	if strings.TrimSpace(r.Title) == "" && strings.TrimSpace(r.Content) == "" {
		return errors.New("title and content: both missing or blank (need at least one)")
	}
	return nil
}

// canonicalURL is r.URL in the crawler's canonical form (package urlfilter:
// lower-case scheme and host, no default port, no fragment, no tracking
// parameters such as utm_*), the key the document is recorded under.
func (r *Request) canonicalURL() (string, error) {
	raw := strings.TrimSpace(r.URL)
	if raw == "" {
		return "", errors.New(`url: missing (the document is recorded under its URL)`)
	}
	if len(raw) > MaxURLBytes {
		return "", fmt.Errorf("url: %d bytes, longer than the %d accepted", len(raw), MaxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("url: want an absolute http or https URL, got %q", r.URL)
	}
	c, err := urlfilter.Canonicalize(nil, raw)
	if err != nil {
		return "", fmt.Errorf("url: %v", err)
	}
	return c.String(), nil
}

// decodeRequest parses one JSON object into a Request. The error names the
// position and the field at fault; where prefixes it ("request body",
// "item 3", "line 7").
func decodeRequest(data []byte, where string) (Request, error) {
	var req Request
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&req); err != nil {
		return Request{}, jsonError(where, data, err)
	}
	if dec.More() {
		return Request{}, fmt.Errorf("%s: invalid JSON: unexpected data after the object at byte %d", where, dec.InputOffset()+1)
	}
	if err := req.Validate(); err != nil {
		return Request{}, fmt.Errorf("%s: %w", where, err)
	}
	return req, nil
}

// jsonError turns an encoding/json error into a message that names where it
// happened.
func jsonError(where string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var fe fieldError
	switch {
	case errors.As(err, &fe):
		return fmt.Errorf("%s: %v", where, fe)
	case len(bytes.TrimSpace(data)) == 0:
		return fmt.Errorf("%s: empty, want a JSON object", where)
	case errors.As(err, &syn):
		return fmt.Errorf("%s: invalid JSON at byte %d: %v", where, syn.Offset, err)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Errorf("%s: want a JSON object, got %s", where, typ.Value)
		}
		return fmt.Errorf("%s: field %s: want %s, got %s", where, typ.Field, typ.Type, typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: invalid JSON: truncated", where)
	default:
		return fmt.Errorf("%s: invalid JSON: %v", where, err)
	}
}
