package render

import (
	"context"

	"github.com/chromedp/chromedp"
)

// A tab takes 150 to 250 ms to open (a new browser context, its target,
// its renderer process): each free slot of the pool keeps one opened
// ahead, while the pages render, so that a page does not wait for it.

// warmTab is a tab opened ahead, in a browser context of its own, with
// nothing loaded. Its context is chromedp's handle on the tab (chromedp
// ties a tab's life to a context).
type warmTab struct {
	inst   *instance
	ctx    context.Context
	cancel func()
}

// takeTab returns a tab of inst opened ahead if there is one, else opens
// one; either way it starts opening the next one.
func (b *Browser) takeTab(inst *instance) (context.Context, func()) {
	defer b.warmNext(inst)
	for {
		select {
		case t := <-b.warm:
			if t.inst == inst && t.ctx.Err() == nil {
				return t.ctx, t.cancel
			}
			t.cancel() // a tab of a browser since restarted
			continue
		default:
		}
		return chromedp.NewContext(inst.ctx, chromedp.WithNewBrowserContext())
	}
}

// warmNext opens a tab of inst in the background, kept for the next page
// if the pool has room for it.
func (b *Browser) warmNext(inst *instance) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.warmWG.Add(1) // under mu: never after Close's Wait began
	b.mu.Unlock()
	go func() {
		defer b.warmWG.Done()
		ctx, cancel := chromedp.NewContext(inst.ctx, chromedp.WithNewBrowserContext())
		if err := chromedp.Do(ctx); err != nil { // opens the target
			cancel()
			return
		}
		b.mu.Lock()
		closed := b.closed
		b.mu.Unlock()
		if closed {
			cancel()
			return
		}
		select {
		case b.warm <- &warmTab{inst: inst, ctx: ctx, cancel: cancel}:
		default:
			cancel() // enough tabs are ready
		}
	}()
}

// dropWarm closes the tabs opened ahead.
func (b *Browser) dropWarm() {
	b.warmWG.Wait()
	for {
		select {
		case t := <-b.warm:
			t.cancel()
		default:
			return
		}
	}
}
