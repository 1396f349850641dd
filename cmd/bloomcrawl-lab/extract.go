package main

import "github.com/bloomcrawl/bloomcrawl/lab/extracteval"

func init() {
	register(command{
		Name:    "extract",
		Summary: "main-text extraction against labelled article pages (token-shingle P/R/F1), syndicated copies through the dedup cascade, doc-corpus recall",
		Run:     extracteval.Main,
	})
}
