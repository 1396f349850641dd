// Package extracteval measures the crawler's main-text extractor against
// labelled article pages, near-duplicate pages built from them, and
// documentation pages on disk. It is lab code: nothing in the product
// imports it.
//
// # Metric
//
// The article metric is the one of scrapinghub/article-extraction-benchmark
// (evaluate.py): text is tokenized into \w+ runs (Unicode letters, digits
// and underscore; case kept), a page's shingles are its runs of 4
// consecutive tokens (a text of fewer than 4 tokens is one shorter
// shingle), counted as multisets; for one page TP = Σ min(true, pred),
// FP = Σ max(0, pred−true), FN = Σ max(0, true−pred), normalized by
// TP+FP+FN; precision = TP/(TP+FP) and recall = TP/(TP+FN) (both 1 when
// FP = FN = 0, 0 when TP is 0), averaged over the pages where they are
// defined, and F1 = 2PR/(P+R) of the averages.
//
// The second set, trafilatura's evaluation corpus (-trafilatura DIR), is
// scored as its eval_common.py does: per page, snippets of the main text
// ("with") and of its boilerplate ("without") are looked for as substrings
// of the extracted text, whitespace runs collapsed on both sides and case
// kept; found "with" snippets are TPs, missed ones FNs, found "without"
// snippets FPs, absent ones TNs, summed over all pages into precision,
// recall, accuracy and F1.
//
// The public boilerplate-removal sets (-clean DIR: Dragnet, L3S-GN1,
// CleanEval, CleanPortalEval and Mozilla Readability's test pages, as
// j-szulc/html-cleaning-dataset-merged gathers them) are scored with the
// article metric, each set's gold read as the Web Content Extraction
// Benchmark (Bevendorff et al. 2023) reads it (cleaning.go). -ref DIR
// scores the texts of reference extractors (lab/refextract writes them)
// on every set beside ours.
//
// Documentation pages (-docs DIR) are scored by shingle recall: against
// the text of the page's one <main>/[role=main] (else its one <article>)
// where it has one; where it has none, against the previous extractor's
// text less the shingles on a fifth or more of the pages of the page's
// directory (3 at least: the site's menus, tables of contents, headers and
// footers), reported apart, with the recall of that text whole as a lower
// bound.
package extracteval
