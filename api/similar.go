package api

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// DefaultSimilarLimit is the number of pages GET /v1/pages/{docId}/similar
// answers without limit=; MaxListLimit is the most it accepts.
const DefaultSimilarLimit = 10

// SimilarAnswer is the answer to GET /v1/pages/{docId}/similar: the pages
// sharing MinHash bands with the document, most shared bands first, then
// highest estimated Jaccard, each with its estimate. The document's own
// near-duplicates share its docId and are not listed.
type SimilarAnswer struct {
	Status  string                `json:"status"`
	DocID   storage.DocID         `json:"doc_id"`
	Count   int                   `json:"count"`
	Similar []storage.SimilarPage `json:"similar"`
}

func (h *handler) pageSimilar(w http.ResponseWriter, r *http.Request) {
	if !h.needDB(w) {
		return
	}
	id, err := storage.ParseDocID(r.PathValue("docId"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	limit := DefaultSimilarLimit
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxListLimit {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit=%q: want an integer from 1 to %d", s, MaxListLimit))
			return
		}
		limit = n
	}
	sims, err := h.db.Similar(r.Context(), id, limit)
	if err != nil {
		h.storeError(w, r, "docId "+id.String(), err)
		return
	}
	if sims == nil {
		sims = []storage.SimilarPage{}
	}
	writeJSON(w, http.StatusOK, SimilarAnswer{Status: StatusSuccess, DocID: id, Count: len(sims), Similar: sims})
}
