package contentdedup_test

import (
	"fmt"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
)

func ExampleDeduper_Check() {
	d, err := contentdedup.New(contentdedup.Options{}) // threshold 3
	if err != nil {
		panic(err)
	}
	article := strings.Repeat("Bloom filters answer set membership with a small false positive rate and no false negatives. "+
		"A crawler uses one to remember the URLs it has already fetched, and SimHash to notice pages it has already stored. ", 8)
	a := d.Check("https://example.org/a", "Bloom filters", article)
	b := d.Check("https://mirror.example.net/a", "Bloom filters | Mirror", "Posted on November 20, 2026\n"+article)
	c := d.Check("https://example.org/a", "", "")
	e := d.Check("https://example.org/b", "首页", "欢迎访问我们的网站。")
	fmt.Println(a.Reason, a.Duplicate)
	fmt.Println(b.Reason, b.Duplicate, b.DocID == a.DocID, b.MatchURL)
	fmt.Println(c.Reason, c.DocID == a.DocID)
	fmt.Println(e.Reason, e.Sig.Flags&contentdedup.FlagContentExact != 0)
	fmt.Println(d.Len())
	// Output:
	// new false
	// title true true https://example.org/a
	// url true
	// new true
	// 2
}
