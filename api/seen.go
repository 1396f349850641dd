package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/seen"
)

// SeenRequest is the body of POST /v1/seen/{key} and POST
// /v1/seen/{key}:test.
type SeenRequest struct {
	IDs []string `json:"ids"`
}

// SeenAddAnswer answers POST /v1/seen/{key}.
type SeenAddAnswer struct {
	Status string `json:"status"` // "success"
	Added  int    `json:"added"`  // ids new to the newest block
	Blocks int    `json:"blocks"` // blocks in the record now
}

// SeenTestAnswer answers POST /v1/seen/{key}:test: the ids split into
// those the key has seen and those new to it, each in input order.
type SeenTestAnswer struct {
	Status string   `json:"status"`
	Seen   []string `json:"seen"`
	New    []string `json:"new"`
}

// SeenRecordAnswer answers GET /v1/seen/{key}.
type SeenRecordAnswer struct {
	Status string `json:"status"`
	seen.Record
}

func (h *handler) needSeen(w http.ResponseWriter) bool {
	if h.o.Seen == nil {
		writeError(w, http.StatusServiceUnavailable, "no seen-records on this server")
		return false
	}
	return true
}

// seenError answers an error of the seen package: 413 for too many ids,
// 400 for other bad input, 500 otherwise.
func (h *handler) seenError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, seen.ErrTooMany):
		writeError(w, http.StatusRequestEntityTooLarge, err.Error())
	case errors.Is(err, seen.ErrInput):
		writeError(w, http.StatusBadRequest, err.Error())
	default:
		h.o.Logger.Error(r.Method+" "+r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// seenPost records ids, or tests them when the key ends in ":test" (a
// ServeMux wildcard is a whole path segment, so the two share a route).
func (h *handler) seenPost(w http.ResponseWriter, r *http.Request) {
	if !h.needSeen(w) {
		return
	}
	key, test := strings.CutSuffix(r.PathValue("key"), ":test")
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	var req SeenRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("request body: %v (want {\"ids\": [\"...\", ...]})", err))
		return
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "request body: more than one JSON value")
		return
	}
	if !test {
		res, err := h.o.Seen.Add(r.Context(), key, req.IDs)
		if err != nil {
			h.seenError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, SeenAddAnswer{Status: StatusSuccess, Added: res.Added, Blocks: res.Blocks})
		return
	}
	got, err := h.o.Seen.Test(r.Context(), key, req.IDs)
	if err != nil {
		h.seenError(w, r, err)
		return
	}
	sp := seen.SplitIDs(req.IDs, got)
	writeJSON(w, http.StatusOK, SeenTestAnswer{Status: StatusSuccess, Seen: sp.Seen, New: sp.New})
}

func (h *handler) seenShow(w http.ResponseWriter, r *http.Request) {
	if !h.needSeen(w) {
		return
	}
	rec, err := h.o.Seen.Show(r.Context(), r.PathValue("key"), false)
	if err != nil {
		h.seenError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, SeenRecordAnswer{Status: StatusSuccess, Record: rec})
}

func (h *handler) seenDelete(w http.ResponseWriter, r *http.Request) {
	if !h.needSeen(w) {
		return
	}
	existed, err := h.o.Seen.Delete(r.Context(), r.PathValue("key"))
	if err != nil {
		h.seenError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": StatusSuccess, "deleted": existed})
}
