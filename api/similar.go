package api

import (
	"net/http"

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
	id, ok := h.docOf(w, r)
	if !ok {
		return
	}
	limit, ok := limitParam(w, r.URL.Query(), DefaultSimilarLimit)
	if !ok {
		return
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
