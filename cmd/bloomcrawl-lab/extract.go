package main

import "github.com/bloomcrawl/bloomcrawl/lab/extracteval"

func init() {
	register(command{
		Name:    "extract",
		Summary: "main-text extraction against labelled article pages (token-shingle P/R/F1; -trafilatura DIR: trafilatura's snippet corpus), syndicated copies through the dedup cascade, doc-corpus recall",
		Run:     extracteval.Main,
	})
}
