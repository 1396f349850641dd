package main

import "github.com/bloomcrawl/bloomcrawl/lab/extracteval"

func init() {
	register(command{
		name:    "extract",
		summary: "main-text extraction against labelled article pages (token-shingle P/R/F1), syndicated copies through the dedup cascade, doc-corpus recall",
		run:     extracteval.Main,
	})
}
