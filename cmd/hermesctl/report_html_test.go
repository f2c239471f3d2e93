package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium is the path of a Chromium (or Chrome) to drive, or "" after a skip. A missing
// browser skips the test, unless HERMES_REQUIRE_CHROMIUM=1 (CI sets it) makes it a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "no Chromium found in $PATH (apt-get install chromium); the HTML report was not checked in a browser"
	if os.Getenv("HERMES_REQUIRE_CHROMIUM") == "1" {
		t.Fatal(msg + ", and HERMES_REQUIRE_CHROMIUM=1 requires it")
	}
	t.Skip(msg + " (set HERMES_REQUIRE_CHROMIUM=1 to make this a failure)")
	return ""
}

// browser opens a headless browser of path for the test.
func browser(t *testing.T, path string) context.Context {
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(path),
		chromedp.NoSandbox, chromedp.WindowSize(1400, 1000), chromedp.Flag("disable-gpu", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// consoleErrors opens url and returns what the page wrote to the console as errors or
// exceptions (a failed resource load included) up to the end of checks, which run on the
// loaded page.
func consoleErrors(t *testing.T, ctx context.Context, url string, checks func()) []string {
	t.Helper()
	const end = "hermes-report-checked"
	messages := chromedp.Console(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	checks()
	// The console keeps its order: once this line is read, every message before it was.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`console.log("`+end+`")`)); err != nil {
		t.Fatal(err)
	}
	var errs []string
	for m, err := range messages {
		if err != nil {
			t.Fatalf("reading the console: %v", err)
		}
		if m.Text == end {
			break
		}
		if m.Type == chromedp.ConsoleError || m.IsException() {
			errs = append(errs, strings.TrimSpace(m.String()+" "+m.URL))
		}
	}
	return errs
}

// TestReportInBrowser writes the demo's HTML timeline and opens it in headless Chromium:
// the timeline, its hook bars (the blocked calls among them) and the slowest hooks are
// there, and the page logs no error. With -update the screenshot replaces
// docs/img/replay-timeline.png; otherwise it goes to the test's artifact directory.
func TestReportInBrowser(t *testing.T) {
	path := chromium(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "report.html")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"demo", "--html", report}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("demo --html: exit %d: %s", code, stderr.String())
	}
	ctx := browser(t, path)
	var shot []byte
	errs := consoleErrors(t, ctx, "file://"+report, func() {
		count := func(sel string) int {
			n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+"`"+sel+"`"+`).length`))
			if err != nil {
				t.Fatalf("count %s: %v", sel, err)
			}
			return n
		}
		for _, c := range []struct {
			sel  string
			want int // at least
		}{
			{"#timeline .row", 50},
			{`#timeline .row[data-kind="hook"] .bar`, 40},
			{`#timeline .row[data-kind="fire"][data-decision="block"] .bar.blocked`, 2},
			{`#timeline .row[data-kind="hook"] .bar.ok`, 10},
			{`#timeline .row[data-kind="hook"][data-decision="block"] .label`, 2},
			{"#slowest tr", 11}, // the header and ten hooks
			{"#conversation li", 5},
		} {
			if n := count(c.sel); n < c.want {
				t.Errorf("%s: %d elements, want at least %d", c.sel, n, c.want)
			}
		}
		// The bars are laid out: a hook's bar has a width on screen.
		w, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector('#timeline .row[data-kind="hook"] .bar').getBoundingClientRect().width`))
		if err != nil || w < 1 {
			t.Errorf("first hook bar is %v px wide (%v), want at least 1", w, err)
		}
		shot, err = chromedp.Run(ctx, chromedp.CaptureScreenshot()) // the viewport: the top of the page
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
	})
	if len(errs) > 0 {
		t.Errorf("the page logged errors:\n%s", strings.Join(errs, "\n"))
	}
	out := filepath.Join(t.ArtifactDir(), "replay-timeline.png")
	if *update {
		out = filepath.Join(repoRoot, "docs", "img", "replay-timeline.png")
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)
}

// TestConsoleErrorsAreSeen holds the check above to account: a page with a script error and
// a missing image is reported.
func TestConsoleErrorsAreSeen(t *testing.T) {
	path := chromium(t)
	page := filepath.Join(t.TempDir(), "broken.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><img src="missing.png"><script>nope();</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	errs := consoleErrors(t, browser(t, path), "file://"+page, func() {})
	joined := strings.Join(errs, "\n")
	if !strings.Contains(joined, "nope") || !strings.Contains(joined, "missing.png") {
		t.Errorf("console errors seen: %q, want the script error and the missing image", joined)
	}
}

// TestReportColoursInBrowser: in the browser, each hook's bar has its status's colour, the
// one the legend shows, and the statuses differ.
func TestReportColoursInBrowser(t *testing.T) {
	path := chromium(t)
	home := reportHome(t)
	report := filepath.Join(t.TempDir(), "r.html")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"replay", filepath.Join(home, "transcript.jsonl"), "--home", home, "--html", report},
		strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("replay --html: exit %d: %s", code, stderr.String())
	}
	ctx := browser(t, path)
	colours := map[string]string{}
	errs := consoleErrors(t, ctx, "file://"+report, func() {
		for _, class := range []string{"ok", "error", "blocked", "decided"} {
			js := `(() => { const bar = document.querySelector('#timeline .row[data-kind="hook"] .bar.` + class + `');
			  const legend = document.querySelector('.legend .` + class + `');
			  if (!bar || !legend) return "missing";
			  const b = getComputedStyle(bar).backgroundColor, l = getComputedStyle(legend).backgroundColor;
			  return b === l ? b : "bar " + b + ", legend " + l; })()`
			c, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(c, "rgb") {
				t.Errorf("hook bar %s: %s", class, c)
			}
			colours[class] = c
		}
	})
	if len(errs) > 0 {
		t.Errorf("the page logged errors:\n%s", strings.Join(errs, "\n"))
	}
	seen := map[string]string{}
	for class, c := range colours {
		if other, ok := seen[c]; ok {
			t.Errorf("%s and %s bars have the same colour %s", class, other, c)
		}
		seen[c] = class
	}
}
