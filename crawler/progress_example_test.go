package crawler_test

import (
	"fmt"
	"os"

	"github.com/bloomcrawl/bloomcrawl/crawler"
)

// The live progress line and the final summary of a crawl; counters that
// stayed 0 and do not always matter are left out of the summary.
func ExampleStats_WriteSummary() {
	fps := uint64(2)
	s := crawler.Stats{Seconds: 12, PagesPerSecond: 40.4, Fetched: 500, Stored: 420, Duplicates: 60, Errors: 3,
		Queued: 7, Redirected: 5, FalsePositives: &fps}
	fmt.Println(s.ProgressLine())
	s.WriteSummary(os.Stdout, "crawl.db")
	// Output:
	//     12s  fetched 500  stored 420  duplicates 60  errors 3  queued 7  40 pages/s  filter FPs 2
	// crawl finished in 12.0s (40 pages/s)
	//   fetched      500
	//   stored       420 new documents
	//   duplicates   60 (URLs mapped to a stored document)
	//   redirected   5
	//   errors       3
	//   queued left  7
	//   filter false positives  2 (URLs the filter called seen that were new: crawled anyway)
	// store: crawl.db
}
