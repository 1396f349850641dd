package render

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/chromedp"
)

// ErrNoBrowser is returned when no Chromium executable is found.
var ErrNoBrowser = errors.New("render: no Chromium executable found: install Debian's chromium package (apt-get install chromium) or set fetch.browser_path")

// Browsers are the executables looked up in PATH, in order, when
// Options.BrowserPath is empty.
var Browsers = []string{"chromium", "chromium-headless-shell", "chromium-browser", "google-chrome", "headless_shell"}

// Defaults of Options.
const (
	DefaultTimeout       = 15 * time.Second
	DefaultMaxBodyBytes  = 16 << 20
	DefaultMaxRequests   = 300
	defaultQuiet         = 400 * time.Millisecond
	pingTimeout          = 3 * time.Second
	snapshotGrace        = 2 * time.Second
	startTimeout         = 30 * time.Second
	closeTimeout         = 5 * time.Second
	maxAttempts          = 2
	defaultPollInterval  = 50 * time.Millisecond
	defaultScrollTimeout = 2 * time.Second
)

// DefaultTabs is the default number of pages rendered at once: half the
// cores, at least 1 (each tab's renderer takes about a core while it runs).
func DefaultTabs() int { return max(1, runtime.NumCPU()/2) }

// Options configure a Browser. The zero value is usable: Chromium found in
// PATH, DefaultTabs tabs, DefaultTimeout per page.
type Options struct {
	// BrowserPath is the Chromium executable; "" looks up Browsers in PATH.
	BrowserPath string
	// Tabs bounds the pages rendered at once. Default DefaultTabs().
	Tabs int
	// Timeout is each page's time budget, from its load to its snapshot.
	// A page still busy when the budget is nearly spent is snapshotted as
	// it is. Default DefaultTimeout (15s).
	Timeout time.Duration
	// Scroll is how many times a page is scrolled to its bottom to load
	// more (each followed by a wait for quiet; stops early when the page
	// stops growing), and how many "load more" buttons are clicked.
	// Default 0: neither.
	Scroll int
	// LoadMedia lets images, media and fonts load. Default false: they are
	// refused without a request.
	LoadMedia bool
	// MaxBodyBytes caps each subresource body handed to the browser.
	// Default DefaultMaxBodyBytes (16 MiB).
	MaxBodyBytes int64
	// MaxRequests caps the requests one page may make (beyond it they are
	// refused). Default DefaultMaxRequests.
	MaxRequests int
	// Quiet is how long no request may be in flight and the DOM unchanged
	// for a page to count as loaded. Default 250ms.
	Quiet time.Duration
	// Logger receives browser starts and restarts (Info) and per-page
	// failures (Debug). nil discards.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Tabs <= 0 {
		o.Tabs = DefaultTabs()
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxRequests <= 0 {
		o.MaxRequests = DefaultMaxRequests
	}
	if o.Quiet <= 0 {
		o.Quiet = defaultQuiet
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// FindBrowser returns the Chromium executable to run: path if set (it must
// exist and be executable), else the first of Browsers in PATH, else
// ErrNoBrowser.
func FindBrowser(path string) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("render: browser %q: %w (install Debian's chromium package: apt-get install chromium)", path, err)
		}
		return p, nil
	}
	for _, name := range Browsers {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// Browser renders pages in one Chromium process with a bounded pool of
// tabs. It is safe for concurrent use; Close it when done.
type Browser struct {
	o    Options
	exe  string
	tabs chan struct{}
	// warm holds tabs opened ahead (warm.go); warmWG their openers
	warm   chan *warmTab
	warmWG sync.WaitGroup

	mu     sync.Mutex
	cur    *instance // nil until the first Render, and after Close
	closed bool

	started, restarts atomic.Int64
}

// instance is one running Chromium. Its contexts are chromedp's handle on
// the process (chromedp ties a browser's life to a context), kept here
// because the process outlives any one call.
type instance struct {
	ctx    context.Context // the browser's chromedp context
	cancel func()          // stops the browser and its allocator
	pid    int             // the browser's process (its group's id)
}

// New returns a Browser for the executable FindBrowser(o.BrowserPath)
// finds; the browser starts on the first Render. It returns FindBrowser's
// error when there is none.
func New(o Options) (*Browser, error) {
	o = o.withDefaults()
	exe, err := FindBrowser(o.BrowserPath)
	if err != nil {
		return nil, err
	}
	return &Browser{o: o, exe: exe, tabs: make(chan struct{}, o.Tabs), warm: make(chan *warmTab, o.Tabs)}, nil
}

// PID returns the process id of the running browser, 0 when none runs.
func (b *Browser) PID() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur == nil {
		return 0
	}
	return b.cur.pid
}

// Executable returns the path of the Chromium the browser runs.
func (b *Browser) Executable() string { return b.exe }

// Stats are a Browser's counters.
type Stats struct {
	Starts   int64 `json:"starts"`   // browser processes started
	Restarts int64 `json:"restarts"` // of which restarts after a crash or hang
}

// Stats returns the browser's counters; safe during Render.
func (b *Browser) Stats() Stats {
	return Stats{Starts: b.started.Load(), Restarts: b.restarts.Load()}
}

// Close stops the browser (if started) and waits for its processes to exit.
// Render fails after Close.
func (b *Browser) Close() error {
	b.mu.Lock()
	inst := b.cur
	b.cur, b.closed = nil, true
	b.mu.Unlock()
	b.dropWarm()
	if inst != nil {
		inst.close()
	}
	return nil
}

// close stops inst gracefully (Browser.close: Chromium ends its own
// renderer and helper processes), then for good after closeTimeout.
func (inst *instance) close() {
	ctx, cancel := context.WithTimeout(inst.ctx, closeTimeout)
	defer cancel()
	_ = chromedp.Cancel(ctx)
	inst.cancel()
}

// instance returns the running browser, starting one if there is none.
func (b *Browser) instance() (*instance, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("render: browser closed")
	}
	if b.cur != nil {
		return b.cur, nil
	}
	inst, err := b.start()
	if err != nil {
		return nil, err
	}
	b.cur = inst
	return inst, nil
}

// ExecOptions are the options Chromium is started with, at exe: headless,
// no sandbox when running as root (the sandbox refuses root), no GPU,
// QUIC or background networking (the browser fetches nothing by itself),
// chromedp's defaults otherwise (a fresh temporary profile that chromedp
// removes when the browser stops, unless the caller names one).
func ExecOptions(exe string) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("no-default-browser-check", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	return opts
}

// start launches Chromium with ExecOptions, in its own process group;
// every page request is answered through Page.Fetch.
func (b *Browser) start() (*instance, error) {
	opts := append(ExecOptions(b.exe), chromedp.ModifyCmdFunc(ownGroup))
	if !b.o.LoadMedia {
		opts = append(opts, chromedp.Flag("blink-settings", "imagesEnabled=false"))
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(bctx) }() // starts the process and its first tab
	t := time.NewTimer(startTimeout)
	defer t.Stop()
	var err error
	select {
	case err = <-done:
	case <-t.C:
		err = fmt.Errorf("no answer in %s", startTimeout)
	}
	if err != nil {
		bcancel()
		acancel()
		return nil, fmt.Errorf("render: start %s: %w", b.exe, err)
	}
	b.started.Add(1)
	b.o.Logger.Info("browser started", "exe", b.exe, "tabs", b.o.Tabs)
	inst := &instance{ctx: bctx}
	if c := chromedp.FromContext(bctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		inst.pid = c.Browser.Process().Pid
	}
	inst.cancel = func() {
		bcancel()
		acancel()
		killGroup(inst.pid)
	}
	return inst, nil
}

// alive reports whether inst answers a short ping.
func (inst *instance) alive() bool {
	if inst.ctx.Err() != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(inst.ctx, pingTimeout)
	defer cancel()
	_, err := chromedp.Targets(ctx)
	return err == nil
}

// restart stops inst if it is still the current browser; the next
// instance() starts a new one.
func (b *Browser) restart(inst *instance) {
	b.mu.Lock()
	if b.cur == inst {
		b.cur = nil
		b.restarts.Add(1)
	}
	b.mu.Unlock()
	inst.cancel()
	b.o.Logger.Info("browser restarted after a crash or hang", "exe", b.exe)
}

// Render renders p in a tab of its own, waiting for a free tab first (or
// ctx's end). A render that fails on a browser that no longer answers
// restarts the browser and tries the page once more. It returns the
// page's snapshot, or why it could not be taken (ctx's error when ctx
// ended first).
func (b *Browser) Render(ctx context.Context, p Page) (Result, error) {
	select {
	case b.tabs <- struct{}{}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	defer func() { <-b.tabs }()
	var err error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		var inst *instance
		if inst, err = b.instance(); err != nil {
			return Result{}, err
		}
		var res Result
		res, err = b.renderOn(ctx, inst, p)
		if err == nil {
			res.Attempts = attempt + 1
			return res, nil
		}
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		b.o.Logger.Debug("render failed", "url", p.URL, "attempt", attempt+1, "err", err)
		if inst.alive() {
			break // the page's own failure: the browser is fine
		}
		b.restart(inst)
	}
	return Result{}, fmt.Errorf("render: %s: %w", p.URL, err)
}
