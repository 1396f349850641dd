package api_test

import (
	"context"
	"fmt"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
)

// A docId service without a store (nil *storage.DB): it decides and
// answers, and forgets everything when the process exits. With a store,
// Submit also records each document.
func ExampleService_Submit() {
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		panic(err)
	}
	svc, err := api.NewService(context.Background(), d, nil, nil)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	a := svc.Submit(ctx, api.Request{URL: "http://www.simhash.com/a", Title: "计算机应用与软件", Content: zhA})
	b := svc.Submit(ctx, api.Request{URL: "http://www.simhash1.com/b", Title: "计算机应用和软件2", Content: zhB})
	bad := svc.Submit(ctx, api.Request{URL: "http://www.simhash2.com/c"})
	fmt.Println(a.Status, a.FilterStatus, a.FilterReason, len(a.DocID))
	fmt.Println(b.Status, b.FilterStatus, b.DocID == a.DocID)
	fmt.Println(bad.Status, bad.Error)
	// Output:
	// success good new 16
	// success duplicate true
	// error title and content: both missing or blank (need at least one)
}
