package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// BenchmarkHTMLReportOpen opens, in headless Chromium, the report of the
// 20,000-line ACP trace of BenchmarkCLIACP and, as the baseline in the same
// browser and run, the report of a 28-line SDK fixture; each open lasts
// from navigation until the page has drawn its timeline. It reports both
// times, their ratio, the time to jump to the last line, and the time per
// frame of scrolling through the whole 20,000-line timeline.
//
//	go test -run='^$' -bench=HTMLReportOpen -benchtime=5x ./cmd/validate
func BenchmarkHTMLReportOpen(b *testing.B) {
	tb := newBrowser(b)
	dir := b.TempDir()
	big := filepath.Join(dir, "acp-20k.jsonl")
	if err := os.WriteFile(big, []byte(acpTrace(20000)), 0o644); err != nil {
		b.Fatal(err)
	}
	small := htmlReport(b, dir, "../../fixtures/acp/sdk/v1/03-permissions.jsonl")
	large := htmlReport(b, dir, big)
	for _, p := range []string{small, large} {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: %d bytes", filepath.Base(p), st.Size())
	}
	open := func(p string) time.Duration {
		start := time.Now()
		tb.open(b, p, "")
		return time.Since(start)
	}
	open(small) // the browser's first page costs more than any other
	b.ResetTimer()
	var tSmall, tLarge, tJump time.Duration
	var frames float64
	for i := 0; i < b.N; i++ {
		tSmall += open(small)
		tLarge += open(large)
		start := time.Now()
		tb.gotoLine(b, 20000)
		tJump += time.Since(start)
		// Scroll the timeline from top to bottom in 100 steps, a frame
		// drawn after each: at 60 Hz a step takes 16.7 ms unless drawing
		// makes a frame late.
		var ms float64
		tb.do(b, chromedp.Evaluate(`(async function () {
			var tl = document.getElementById("tl"), n = 100, t0 = performance.now();
			for (var k = 0; k <= n; k++) {
				tl.scrollTop = (tl.scrollHeight - tl.clientHeight) * k / n;
				await new Promise(function (r) { requestAnimationFrame(r); });
			}
			return (performance.now() - t0) / (n + 1);
		})()`, &ms, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		frames += ms
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(tSmall.Milliseconds())/n, "ms/open-small")
	b.ReportMetric(float64(tLarge.Milliseconds())/n, "ms/open-20k")
	b.ReportMetric(float64(tLarge)/float64(tSmall), "20k/small")
	b.ReportMetric(float64(tJump.Milliseconds())/n, "ms/jump-to-end")
	b.ReportMetric(frames/n, "ms/scroll-frame")
}

// BenchmarkHTMLFolderReportOpen opens, in headless Chromium, the report of
// a folder of generated ACP traces (2,000 and 10,000) from navigation until
// the overview is drawn, then the worst trace from its row, and reports
// the times and the page's size.
//
//	go test -run='^$' -bench=HTMLFolderReportOpen -benchtime=3x ./cmd/validate
func BenchmarkHTMLFolderReportOpen(b *testing.B) {
	tb := newBrowser(b)
	for _, n := range []int{2000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			folder, _ := fleetFolder(b, dir, n, n/2)
			p := htmlReport(b, dir, folder)
			st, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			var tOpen, tTrace time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				tb.open(b, p, "")
				tb.do(b, chromedp.WaitVisible(`#ov-table tbody tr`, chromedp.ByQuery))
				tOpen += time.Since(start)
				start = time.Now()
				tb.do(b, chromedp.Click(`#ov-table tbody tr:first-child td.name a`, chromedp.ByQuery), chromedp.WaitVisible(`#sizer .row`, chromedp.ByQuery))
				tTrace += time.Since(start)
			}
			b.StopTimer()
			b.ReportMetric(float64(tOpen.Milliseconds())/float64(b.N), "ms/open")
			b.ReportMetric(float64(tTrace.Milliseconds())/float64(b.N), "ms/open-trace")
			b.ReportMetric(float64(st.Size())/(1<<20), "MB/page")
		})
	}
}
