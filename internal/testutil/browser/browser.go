// Package browser runs Debian's headless Chromium for tests and the HTML
// report benchmark, through chromedp: a fresh profile per browser, and
// per page everything that went wrong (console errors and warnings,
// uncaught exceptions, dialogs, any request other than the page itself),
// so a test can demand that there was none.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/gitops-promote/gitops-promote/internal/tempdir"
)

// ErrNoChromium says how to get the browser.
var ErrNoChromium = errors.New("chromium not found on PATH: run `make test-browser` (it installs Debian's chromium) or `apt-get install chromium`")

// Path finds the chromium binary.
func Path() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// Browser is one headless Chromium process with its own profile.
type Browser struct {
	ctx     context.Context // the first tab's: its first Run starts the process
	cancel  func()
	profile string
}

// singletonSocket is what chromium adds to TMPDIR for its singleton
// socket, which it leaves behind when stopped: its TMPDIR is the profile,
// which Close removes, made short enough for the socket.
const singletonSocket = "org.chromium.Chromium.XXXXXX/SingletonSocket"

// Start launches Chromium with the flags that work on this kind of
// machine (no sandbox as root, no GPU) and no background traffic of its
// own, so every request a page shows is the page's.
func Start(parent context.Context, width, height int) (*Browser, error) {
	path, err := Path()
	if err != nil {
		return nil, err
	}
	profile, err := tempdir.ForSocket("chromium-", singletonSocket)
	if err != nil {
		return nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Env("TMPDIR=" + profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("force-color-profile", "srgb"),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	b := &Browser{ctx: ctx, profile: profile, cancel: func() { cancelTab(); cancelAlloc() }}
	if err := chromedp.Do(ctx); err != nil {
		b.Close()
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	return b, nil
}

// Close stops the browser and removes its profile.
func (b *Browser) Close() {
	b.cancel()
	_ = os.RemoveAll(b.profile)
}

// Page is one tab and what it reported.
type Page struct {
	Ctx    context.Context // a chromedp context: chromedp.Run(p.Ctx, ...)
	cancel func()
	url    string

	mu       sync.Mutex
	problems []string
}

// Open loads url in a new tab, records every console message, exception,
// dialog and request from the start, and waits until the page sets
// ready (a JavaScript expression that becomes true).
func (b *Browser) Open(url, ready string) (*Page, error) {
	ctx, cancel := chromedp.NewContext(b.ctx)
	p := &Page{Ctx: ctx, cancel: cancel, url: strings.SplitN(url, "#", 2)[0]}
	if err := chromedp.Listen(ctx, p.record); err != nil {
		cancel()
		return nil, err
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		cancel()
		return nil, fmt.Errorf("loading %s: %w", url, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](ready)); err != nil {
		cancel()
		return nil, fmt.Errorf("waiting for %s on %s: %w (problems: %s)", ready, url, err, strings.Join(p.Problems(), "; "))
	}
	return p, nil
}

// Close closes the tab.
func (p *Page) Close() { p.cancel() }

// record runs on chromedp's reader goroutine: it only appends.
func (p *Page) record(ev any) {
	var msg string
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			msg = fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		msg = "exception: " + d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
			msg = fmt.Sprintf("browser log %s (%s): %s %s", e.Entry.Level, e.Entry.Source, e.Entry.Text, e.Entry.URL)
		}
	case *page.EventJavascriptDialogOpening:
		msg = fmt.Sprintf("dialog %s: %s", e.Type, e.Message)
	case *network.EventRequestWillBeSent:
		if u := strings.SplitN(e.Request.URL, "#", 2)[0]; u != p.url {
			msg = "request: " + e.Request.URL
		}
	}
	if msg != "" {
		p.mu.Lock()
		p.problems = append(p.problems, msg)
		p.mu.Unlock()
	}
}

// Problems lists what went wrong on the page so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Eval evaluates a JavaScript expression on the page.
func Eval[T any](p *Page, expr string) (T, error) {
	v, err := chromedp.Run(p.Ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		return v, fmt.Errorf("evaluating %s: %w", expr, err)
	}
	return v, nil
}
