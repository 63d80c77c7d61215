package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/agentproto/agentproto/internal/htmlreport"
	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
	"github.com/agentproto/agentproto/pkg/validate/typed"
)

// The HTML report is tested in a real browser: headless Chromium (Debian's
// chromium package, which .ci/run installs) opens reports of fixtures of
// every protocol and of a trace made to inject markup, and the tests read
// what a user sees.

// chromiumPath finds the browser: $CHROMIUM if set (none if it does not
// exist), or chromium on the PATH.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// browserTab starts headless Chromium and returns a tab, and what the page
// did that no report may do: dialogs opened, uncaught exceptions, errors
// logged (a blocked load or script is one).
type tab struct {
	ctx context.Context
	mu  sync.Mutex
	bad []string
}

// problems lists the first few misbehaviours, and how many there were.
func (tb *tab) problems() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.bad) > 5 {
		return append(append([]string(nil), tb.bad[:5]...), fmt.Sprintf("and %d more", len(tb.bad)-5))
	}
	return append([]string(nil), tb.bad...)
}

func newBrowser(t testing.TB) *tab {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("chromium is not installed (apt-get install chromium, or set CHROMIUM): the HTML report's browser test is skipped")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root
		chromedp.WindowSize(1400, 900),
		chromedp.Flag("allow-file-access-from-files", false),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	tb := &tab{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch e := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			tb.bad = append(tb.bad, "a dialog opened: "+e.Message)
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(false))
		case *runtime.EventExceptionThrown:
			tb.bad = append(tb.bad, "uncaught exception: "+e.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError {
				tb.bad = append(tb.bad, "logged: "+e.Entry.Text)
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				tb.bad = append(tb.bad, "console error")
			}
		}
	})
	if err := chromedp.Run(ctx, log.Enable()); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return tb
}

// report runs validate --format html on paths and writes the page to a
// file of the test's temporary folder.
func htmlReport(t testing.TB, dir string, paths ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"--format", "html", "--progress", "never"}, paths...)
	if code := run(context.Background(), args, nil, &out, &errb, plugins{fast: typed.Checker{}}); code == exitUsage {
		t.Fatalf("validate %v: exit %d: %s", args, code, errb.String())
	}
	p := filepath.Join(dir, fmt.Sprintf("report-%d.html", time.Now().UnixNano()))
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// validateJSON runs validate --format json on path.
func validateJSON(t testing.TB, path string) ([]jsonFinding, jsonSummary) {
	t.Helper()
	var out, errb bytes.Buffer
	run(context.Background(), []string{"--format", "json", "--progress", "never", path}, nil, &out, &errb, plugins{fast: typed.Checker{}})
	var fs []jsonFinding
	var sum jsonSummary
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(l, `{"summary"`) {
			if err := json.Unmarshal([]byte(l), &sum); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var f jsonFinding
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		fs = append(fs, f)
	}
	return fs, sum
}

func fileURL(p, hash string) string {
	abs, _ := filepath.Abs(p)
	return "file://" + abs + hash
}

// open loads a report and waits until its script has drawn it.
func (tb *tab) open(t testing.TB, p, hash string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.Navigate(fileURL(p, hash)), chromedp.WaitReady(`html[data-ready="1"]`, chromedp.ByQuery)); err != nil {
		t.Fatalf("opening %s: %v (%v)", p, err, tb.problems())
	}
}

// eval runs a script in the page and decodes its result into out.
func (tb *tab) eval(t testing.TB, js string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, out)); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
}

func (tb *tab) text(t testing.TB, sel string) string {
	t.Helper()
	var s string
	tb.eval(t, fmt.Sprintf(`(function(){var e=document.querySelector(%q);return e?e.innerText:"<none>"})()`, sel), &s)
	return s
}

// do runs actions with a deadline.
func (tb *tab) do(t testing.TB, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%v (%v)", err, tb.problems())
	}
}

// gotoLine follows a #L link as a user's address bar would and waits
// for the line to be selected.
func (tb *tab) gotoLine(t testing.TB, line int) {
	t.Helper()
	tb.do(t, chromedp.Evaluate(fmt.Sprintf(`location.hash = "#L%d"`, line), nil),
		chromedp.WaitVisible(fmt.Sprintf(`#sizer .row.sel[data-line="%d"]`, line), chromedp.ByQuery))
}

// checkFindingsAtMessages: each finding of validate --format json shows
// in the row of its line and, whole, in the panel of the selected line;
// the counts are those of the summary.
func checkFindingsAtMessages(t *testing.T, tb *tab, trace string) {
	t.Helper()
	fs, sum := validateJSON(t, trace)
	for id, want := range map[string]int{"#c-errors .n": sum.Summary.Errors, "#c-warnings .n": sum.Summary.Warnings, "#c-messages .n": sum.Summary.Messages, "#c-lines .n": sum.Summary.Lines} {
		if got := tb.text(t, id); got != fmt.Sprint(want) {
			t.Errorf("%s: %s shows %q, want %d", trace, id, got, want)
		}
	}
	inline := map[int]int{}
	for _, f := range fs {
		if f.Line == 0 {
			continue
		}
		tb.gotoLine(t, f.Line)
		row := tb.text(t, fmt.Sprintf(`#sizer .row[data-line="%d"]`, f.Line))
		if inline[f.Line] < 6 && !strings.Contains(row, f.Rule) {
			t.Errorf("%s:%d: the row does not show rule %s:\n%s", trace, f.Line, f.Rule, row)
		}
		inline[f.Line]++
		panel := tb.text(t, "#detail")
		if !strings.Contains(strings.ToLower(panel), f.Severity+" "+f.Rule) {
			t.Errorf("%s:%d: the selected message's panel lacks %q:\n%s", trace, f.Line, f.Severity+" "+f.Rule, panel)
		}
		for _, part := range []string{fmt.Sprintf("Line %d", f.Line), f.Pointer, f.Message} {
			if !strings.Contains(panel, part) {
				t.Errorf("%s:%d: the selected message's panel lacks %q:\n%s", trace, f.Line, part, panel)
			}
		}
	}
}

var reportFixtures = []struct {
	path string
	shot string // a screenshot's name, of the first selected line
	line int
}{
	{path: "../../fixtures/acp/invalid/07-unknown-session-tool-option.jsonl", shot: "acp-invalid-07.png", line: 14},
	{path: "../../fixtures/acp/invalid/01-session-update-schema.jsonl"},
	{path: "../../fixtures/acp/sdk/v1/04-terminals-fs.jsonl"},
	{path: "../../fixtures/arcp/recordings/go-sdk/02_job_all_event_kinds.jsonl", shot: "arcp-go-sdk-job.png", line: 4},
	{path: "../../fixtures/arcp/v1.1/invalid/seq-gap.jsonl"},
	{path: "../../fixtures/arcp/v1.1/invalid/session-mismatch.jsonl"},
	{path: "../../fixtures/arcan/invalid/unknown-call-id.jsonl"},
	{path: "../../fixtures/arcan/invalid/schema.jsonl"},
	{path: "../../fixtures/arcan/valid/tool-run.sse"},
}

// artifactDir is where screenshots go: $ARTIFACTS_DIR, or testdata/artifacts
// (ignored by git).
func artifactDir(t testing.TB) string {
	d := os.Getenv("ARTIFACTS_DIR")
	if d == "" {
		d = filepath.Join("testdata", "artifacts")
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestHTMLReportInBrowser opens the report of fixtures of every protocol
// and checks what a user sees: every finding at its message, the counts,
// request/response links both ways, filters, search, and links that
// survive a reload.
func TestHTMLReportInBrowser(t *testing.T) {
	tb := newBrowser(t)
	dir := t.TempDir()
	for _, fx := range reportFixtures {
		t.Run(filepath.Base(fx.path), func(t *testing.T) {
			p := htmlReport(t, dir, fx.path)
			tb.open(t, p, "")
			checkFindingsAtMessages(t, tb, fx.path)
			if fx.shot != "" {
				tb.open(t, p, fmt.Sprintf("#L%d", fx.line))
				var png []byte
				tb.do(t, chromedp.WaitVisible(`#sizer .row.sel`, chromedp.ByQuery), chromedp.CaptureScreenshot(&png))
				out := filepath.Join(artifactDir(t), fx.shot)
				if err := os.WriteFile(out, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("screenshot: %s", out)
			}
			if bad := tb.problems(); len(bad) > 0 {
				t.Fatalf("the page misbehaved: %v", bad)
			}
		})
	}
}

// TestHTMLReportInteractions: links between a request and its response
// work both ways, a #L link survives a reload, and the filters and the
// search show what they promise.
func TestHTMLReportInteractions(t *testing.T) {
	tb := newBrowser(t)
	p := htmlReport(t, t.TempDir(), "../../fixtures/acp/invalid/07-unknown-session-tool-option.jsonl")
	tb.open(t, p, "")

	// Line 5 (session/prompt) is answered on line 6: follow the link, and
	// back.
	tb.gotoLine(t, 5)
	tb.do(t, chromedp.Click(`#sizer .row[data-line="5"] a[href="#L6"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#sizer .row.sel[data-line="6"]`, chromedp.ByQuery))
	tb.do(t, chromedp.Click(`#sizer .row[data-line="6"] a[href="#L5"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#sizer .row.sel[data-line="5"]`, chromedp.ByQuery))
	if got := tb.text(t, "#detail h2"); !strings.HasPrefix(got, "Line 5 · session/prompt") {
		t.Errorf("after the link back, the panel shows %q", got)
	}

	// A reload keeps the selected line.
	tb.gotoLine(t, 14)
	tb.do(t, chromedp.Reload(), chromedp.WaitReady(`html[data-ready="1"]`, chromedp.ByQuery))
	tb.do(t, chromedp.WaitVisible(`#sizer .row.sel[data-line="14"]`, chromedp.ByQuery))
	if got := tb.text(t, "#detail"); !strings.Contains(got, "permission-option") || !strings.Contains(got, `"allow"`) ||
		!strings.Contains(got, "Rule permission-option: ACP: a permission outcome choosing an option that was not offered") {
		t.Errorf("after a reload, the panel of line 14 shows:\n%s", got)
	}
	var hl string
	tb.eval(t, `document.querySelector("#detail pre.json .hl").textContent`, &hl)
	if hl != `"allow"` {
		t.Errorf("the highlighted value is %q, want the optionId at the finding's pointer", hl)
	}

	rows := func() []string {
		var out []string
		tb.eval(t, `Array.from(document.querySelectorAll("#sizer .row")).map(r => r.dataset.line + " " + r.className + " " + r.querySelector(".lbl").textContent)`, &out)
		return out
	}
	setSelect := func(id, value string) {
		tb.eval(t, fmt.Sprintf(`(function(){var s=document.getElementById(%q); s.value=%q; s.dispatchEvent(new Event("change")); return s.value})()`, id, value), new(string))
	}

	// Errors only: the four lines with errors.
	tb.do(t, chromedp.Click(`#f-errors`, chromedp.ByID))
	got := rows()
	if len(got) != 4 || !strings.HasPrefix(got[0], "5 ") || !strings.HasPrefix(got[1], "9 ") || !strings.HasPrefix(got[2], "11 ") || !strings.HasPrefix(got[3], "14 ") {
		t.Errorf("errors only shows %q, want lines 5, 9, 11 and 14", got)
	}
	if s := tb.text(t, "#shown"); s != "4 of 16 messages shown" {
		t.Errorf("the count of shown rows says %q", s)
	}
	tb.do(t, chromedp.Click(`#f-errors`, chromedp.ByID))

	// One method.
	setSelect("f-method", "session/prompt")
	got = rows()
	if len(got) != 2 || !strings.HasSuffix(got[0], "session/prompt") || !strings.HasSuffix(got[1], "session/prompt") {
		t.Errorf("method session/prompt shows %q", got)
	}
	setSelect("f-method", "")

	// One session: the other session's update (line 11) only.
	var groups []string
	tb.eval(t, `Array.from(document.querySelectorAll("#f-group option")).map(o => o.value + "=" + o.textContent)`, &groups)
	other := ""
	for _, g := range groups {
		if strings.HasSuffix(g, "session sess_0000OTHER000") {
			other = strings.SplitN(g, "=", 2)[0]
		}
	}
	if other == "" {
		t.Fatalf("no filter for the session of line 11 among %q", groups)
	}
	setSelect("f-group", other)
	if got = rows(); len(got) != 1 || !strings.HasPrefix(got[0], "11 ") {
		t.Errorf("session sess_0000OTHER000 shows %q, want line 11", got)
	}
	setSelect("f-group", "-1")

	// With findings: the warnings count too (none here but the errors).
	tb.do(t, chromedp.Click(`#f-findings`, chromedp.ByID))
	if got = rows(); len(got) != 4 {
		t.Errorf("with findings shows %q, want lines 5, 9, 11 and 14", got)
	}
	tb.do(t, chromedp.Click(`#f-findings`, chromedp.ByID))

	// Search, as typed.
	tb.do(t, chromedp.SendKeys(`#f-search`, "npm test", chromedp.ByID),
		chromedp.WaitVisible(`//span[@id="shown"][starts-with(text(), "1 of")]`))
	if got = rows(); len(got) != 1 || !strings.HasPrefix(got[0], "12 ") {
		t.Errorf("searching npm test shows %q, want line 12", got)
	}
	if bad := tb.problems(); len(bad) > 0 {
		t.Fatalf("the page misbehaved: %v", bad)
	}
}

// TestHTMLReportEveryFixture opens the report of the whole fixtures tree
// (every protocol, and the unreadable, empty and unrecognised files of
// fixtures/misc) at each trace in turn, with its summary open: each shows
// its name and its errors and warnings as --format json counts them, and
// nothing throws.
func TestHTMLReportEveryFixture(t *testing.T) {
	tb := newBrowser(t)
	p := htmlReport(t, t.TempDir(), "../../fixtures")
	fs, _ := validateJSON(t, "../../fixtures")
	type count struct{ errors, warnings int }
	want := map[string]*count{}
	for _, f := range fs {
		c := want[f.File]
		if c == nil {
			c = &count{}
			want[f.File] = c
		}
		if f.Severity == "error" {
			c.errors++
		} else {
			c.warnings++
		}
	}
	tb.open(t, p, "")
	// Each trace in turn, as its #t<N>-L1 link opens it (the hashchange
	// is dispatched here, so that the page answers at once), a batch of
	// traces per script so that each has its own deadline on a busy
	// machine.
	var n int
	tb.eval(t, `parseInt(document.querySelector("#ov-traces .n").textContent.replace(/,/g, ""), 10)`, &n)
	var seen []struct {
		Name, Errors, Warnings string
	}
	const batch = 20
	for from := 1; from <= n; from += batch {
		var part []struct {
			Name, Errors, Warnings string
		}
		tb.eval(t, fmt.Sprintf(`(function () {
		var out = [];
		for (var i = %d; i <= %d; i++) {
			history.replaceState(null, "", "#t" + i + "-L1");
			window.dispatchEvent(new HashChangeEvent("hashchange"));
			document.querySelector("#summary").open = true;
			out.push({Name: document.querySelector("#trace-meta b").textContent,
				Errors: document.querySelector("#c-errors .n").textContent,
				Warnings: document.querySelector("#c-warnings .n").textContent});
		}
		return out;
	})()`, from, min(from+batch-1, n)), &part)
		seen = append(seen, part...)
	}
	if len(seen) < 100 {
		t.Fatalf("%d traces in the report of the fixtures", len(seen))
	}
	for _, s := range seen {
		c := want[s.Name]
		if c == nil {
			c = &count{}
		}
		if s.Errors != fmt.Sprint(c.errors) || s.Warnings != fmt.Sprint(c.warnings) {
			t.Errorf("%s: the page counts %s errors and %s warnings, --format json %d and %d", s.Name, s.Errors, s.Warnings, c.errors, c.warnings)
		}
	}
	if bad := tb.problems(); len(bad) > 0 {
		t.Fatalf("the page misbehaved: %v", bad)
	}
}

// TestHTMLReportTraces: a report of several traces opens at the trace and
// line its link names, also after a reload.
func TestHTMLReportTraces(t *testing.T) {
	tb := newBrowser(t)
	// The second has errors and a warning on other lines.
	first, second := "../../fixtures/arcan/valid/tool-run.jsonl", "../../fixtures/acp/invalid/09-unknown-method.jsonl"
	p := htmlReport(t, t.TempDir(), first, second)
	fs, _ := validateJSON(t, second)
	if len(fs) == 0 || fs[0].Line == 0 {
		t.Fatalf("%s: want a finding on a line, got %v", second, fs)
	}
	hash := fmt.Sprintf("#t2-L%d", fs[0].Line)
	for _, reload := range []bool{false, true} {
		if reload {
			tb.do(t, chromedp.Reload(), chromedp.WaitReady(`html[data-ready="1"]`, chromedp.ByQuery))
		} else {
			tb.open(t, p, hash)
		}
		tb.do(t, chromedp.WaitVisible(fmt.Sprintf(`#sizer .row.sel[data-line="%d"]`, fs[0].Line), chromedp.ByQuery))
		if meta := tb.text(t, "#trace-meta"); !strings.Contains(meta, second) || !strings.Contains(meta, "ACP v1") {
			t.Errorf("%s (reload %v) shows the trace %q", hash, reload, meta)
		}
		if row := tb.text(t, "#sizer .row.sel"); !strings.Contains(row, fs[0].Rule) {
			t.Errorf("%s (reload %v): the selected row lacks %s:\n%s", hash, reload, fs[0].Rule, row)
		}
	}
	var back, title string
	tb.eval(t, `document.getElementById("back").getAttribute("href")`, &back)
	if back != "#overview" {
		t.Errorf("the way back to the overview is %q, want #overview", back)
	}
	tb.eval(t, `document.title`, &title)
	if !strings.HasPrefix(title, second) {
		t.Errorf("the window's title is %q, want the trace's name first", title)
	}

	// Errors only shows the lines with an error; with findings, the lines
	// with any finding.
	errLines, findLines := map[string]bool{}, map[string]bool{}
	for _, f := range fs {
		if f.Line == 0 {
			continue
		}
		findLines[fmt.Sprint(f.Line)] = true
		if f.Severity == "error" {
			errLines[fmt.Sprint(f.Line)] = true
		}
	}
	for _, c := range []struct {
		box  string
		want map[string]bool
	}{{"#f-errors", errLines}, {"#f-findings", findLines}} {
		var shown []string
		tb.do(t, chromedp.Click(c.box, chromedp.ByQuery))
		tb.eval(t, `Array.from(document.querySelectorAll("#sizer .row")).map(r => r.dataset.line)`, &shown)
		tb.do(t, chromedp.Click(c.box, chromedp.ByQuery))
		got := map[string]bool{}
		for _, l := range shown {
			got[l] = true
		}
		if len(c.want) == 0 || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s shows lines %v, want %v", c.box, shown, c.want)
		}
	}
	if bad := tb.problems(); len(bad) > 0 {
		t.Fatalf("the page misbehaved: %v", bad)
	}
}

// TestHTMLReportBounded: a report past its bound shows every finding with
// the messages around it, says what it left out, and marks the gaps.
func TestHTMLReportBounded(t *testing.T) {
	tb := newBrowser(t)
	lines := strings.Split(strings.TrimSpace(acpTrace(600)), "\n")
	bad := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":7}}}}`
	lines[295], lines[487] = bad, bad // lines 296 and 488, message chunks
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(big, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := boundedReport(t, dir, htmlreport.Options{MaxRows: 100, Context: 2}, big)
	tb.open(t, p, "#L488")
	tb.do(t, chromedp.WaitVisible(`#sizer .row.sel[data-line="488"]`, chromedp.ByQuery))
	n := len(lines)
	want := fmt.Sprintf("leaves out %d messages (lines 101–293, 299–485, 491–%d)", n-100-10, n)
	if got := tb.text(t, "#omitted"); !strings.Contains(got, want) {
		t.Errorf("the notice says %q, want %q", got, want)
	}
	var around []string
	tb.eval(t, `Array.from(document.querySelectorAll("#sizer > div")).map(e => e.classList.contains("gap") ? "gap: " + e.textContent : e.dataset.line)`, &around)
	joined := strings.Join(around, ",")
	if !strings.Contains(joined, "gap: … 187 messages left out") || !strings.Contains(joined, ",486,487,488,489,490,gap") {
		t.Errorf("around line 488 the timeline shows %q", joined)
	}
	// A line left out says so, and the notice it points to is there.
	if got := lineWithoutMessage(t, tb, 150); !strings.Contains(got, fmt.Sprintf("Line 150 is one of the %d messages this report leaves out of the trace (lines 101–293 here)", n-100-10)) || !strings.Contains(got, "as the notice above the timeline says") {
		t.Errorf("line 150, left out, says %q", got)
	}
	tb.gotoLine(t, 488)
	// n jumps to the next finding, p back.
	tb.do(t, chromedp.KeyEvent("p"), chromedp.WaitVisible(`#sizer .row.sel[data-line="296"]`, chromedp.ByQuery))
	tb.do(t, chromedp.KeyEvent("n"), chromedp.WaitVisible(`#sizer .row.sel[data-line="488"]`, chromedp.ByQuery))
	tb.do(t, chromedp.KeyEvent("j"), chromedp.WaitVisible(`#sizer .row.sel[data-line="489"]`, chromedp.ByQuery))
	if bad := tb.problems(); len(bad) > 0 {
		t.Fatalf("the page misbehaved: %v", bad)
	}
}

// boundedReport checks traces with the engine into a report of bounds o,
// and writes the page to a file of dir.
func boundedReport(t *testing.T, dir string, o htmlreport.Options, traces ...string) string {
	t.Helper()
	e, err := validate.New(validate.Options{Fast: typed.Checker{}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Protocols == nil {
		o.Protocols = report.HTMLProtocols(report.Catalogue{})
	}
	r := htmlreport.New(o)
	for _, name := range traces {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := e.Check(context.Background(), name, f, validate.FileOptions{Message: func(m validate.MessageInfo) { r.Message(name, report.HTMLMessage(m)) }}, r.Finding)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		r.End(name, sum)
	}
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fmt.Sprintf("bounded-%d.html", time.Now().UnixNano()))
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// injection is a trace that puts markup and script everywhere a trace's
// text reaches the page: strings, keys, method names, session and tool
// call ids, titles, and (in the test) the file's name.
func injectionTrace() string {
	const x = `<img src=x onerror="window.pwned=1;alert(1)"><script>window.pwned=2;alert(2)</script><svg onload=alert(3)><iframe src="javascript:alert(4)"></iframe>`
	q, _ := json.Marshal(x)
	js := strings.NewReplacer(`\u003c`, `<`, `\u003e`, `>`, `\u0026`, `&`).Replace(string(q))
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":` + js + `,"version":` + js + `}}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[],"agentInfo":{"name":` + js + `,"title":` + js + `,"version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":` + js + `}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` + js + `,"update":{"sessionUpdate":"tool_call","toolCallId":` + js + `,"title":` + js + `,"status":"pending"}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` + js + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + js + `}},` + js + `:1}}`,
		`{"jsonrpc":"2.0","id":2,"method":` + js + `,"params":{` + js + `:` + js + `}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"</script><script>alert(5)</script>","update":{"sessionUpdate":"plan","entries":[{"content":` + js + `,"priority":"high","status":"pending"}]}}}`,
		`not json ` + x,
		`{"jsonrpc":"2.0","id":3,"result":` + js + `}`,
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestHTMLReportInjectionStaysText: markup and script from a trace (and
// its name) show as text; nothing runs, no element is made of them.
func TestHTMLReportInjectionStaysText(t *testing.T) {
	tb := newBrowser(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, `<img src=x onerror=alert(9)>.jsonl`)
	if err := os.WriteFile(trace, []byte(injectionTrace()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := htmlReport(t, dir, trace)
	tb.open(t, p, "")
	// Draw every line, its panel, and the summary's lists.
	tb.do(t, chromedp.Evaluate(`document.querySelector("#summary").open = true`, nil))
	for line := 1; line <= 10; line++ {
		tb.gotoLine(t, line)
	}
	var counts map[string]int
	tb.eval(t, `({
		scripts: document.querySelectorAll("script").length,
		styles: document.querySelectorAll("style, link").length,
		made: document.querySelectorAll("img, svg, iframe, object, embed, frame, video, audio, form, base, math").length,
		handlers: Array.from(document.querySelectorAll("*")).filter(e => Array.from(e.attributes).some(a => a.name.startsWith("on"))).length,
		pwned: window.pwned === undefined ? 0 : 1,
	})`, &counts)
	want := map[string]int{"scripts": 2, "styles": 1, "made": 0, "handlers": 0, "pwned": 0}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d, want %d", k, counts[k], v)
		}
	}
	body := tb.text(t, "body")
	for _, s := range []string{`<img src=x onerror="window.pwned=1;alert(1)">`, `<img src=x onerror=alert(9)>.jsonl`, `</script><script>alert(5)</script>`} {
		if !strings.Contains(body, s) {
			t.Errorf("the page does not show %q as text", s)
		}
	}
	if bad := tb.problems(); len(bad) > 0 {
		t.Errorf("the page misbehaved: %v", bad)
	}
}

// fleetFolder writes n ACP traces to dir/fleet, t0000.jsonl on: trace i
// has i%4 schema errors (one a line), and trace worst has 9, the most.
func fleetFolder(t testing.TB, dir string, n, worst int) (folder, worstName string) {
	t.Helper()
	folder = filepath.Join(dir, "fleet")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		lines := []string{acpInit, acpInitResp, acpNew, acpNewResp}
		bad := i % 4
		if i == worst {
			bad = 9
		}
		for range bad {
			lines = append(lines, acpBadType)
		}
		name := filepath.Join(folder, fmt.Sprintf("t%04d.jsonl", i))
		if err := os.WriteFile(name, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if i == worst {
			worstName = name
		}
	}
	return folder, worstName
}

// TestHTMLFolderReport: the report of a folder of 2,000 traces opens on
// its overview, with the totals --format json counts and the worst trace
// first; its link opens the trace, whose way back leads to its row; the
// table sorts by a column and filters by rule and by text.
func TestHTMLFolderReport(t *testing.T) {
	tb := newBrowser(t)
	dir := t.TempDir()
	folder, worst := fleetFolder(t, dir, 2000, 1234)
	p := htmlReport(t, dir, folder)
	_, sum := validateJSON(t, folder)
	tb.open(t, p, "")
	comma := func(n int) string {
		s := fmt.Sprint(n)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	for id, want := range map[string]int{"#ov-traces .n": 2000, "#ov-errors .n": sum.Summary.Errors, "#ov-warnings .n": sum.Summary.Warnings, "#ov-messages .n": sum.Summary.Messages} {
		if got := tb.text(t, id); got != comma(want) {
			t.Errorf("%s shows %q, want %s", id, got, comma(want))
		}
	}
	if sum.Summary.Errors == 0 {
		t.Fatal("the generated traces have no error")
	}
	if got := tb.text(t, "#ov-rules tbody tr:first-child th"); got != "schema" {
		t.Errorf("the first rule is %q, want schema", got)
	}
	if got := tb.text(t, "#ov-sides tbody tr:first-child th"); got != "agent" {
		t.Errorf("the first side is %q, want agent", got)
	}
	first := tb.text(t, "#ov-table tbody tr:first-child td.name a")
	if first != worst {
		t.Errorf("the first trace listed is %q, want the worst, %q", first, worst)
	}
	if got := tb.text(t, "#ov-table tbody tr:first-child td:nth-child(3)"); got != "9" {
		t.Errorf("the first trace's errors show %q, want 9", got)
	}
	var rows int
	tb.eval(t, `document.querySelectorAll("#ov-table tbody tr").length`, &rows)
	if rows != 200 || !strings.HasPrefix(tb.text(t, "#ov-shown"), "Showing 1–200 of 2,000 traces") {
		t.Errorf("%d rows drawn, and %q", rows, tb.text(t, "#ov-shown"))
	}

	// Into the worst trace: its timeline, its nine errors; back to its row.
	tb.do(t, chromedp.Click(`#ov-table tbody tr:first-child td.name a`, chromedp.ByQuery),
		chromedp.WaitVisible(`#trace-meta`, chromedp.ByQuery))
	if meta := tb.text(t, "#trace-meta"); !strings.Contains(meta, worst) {
		t.Errorf("the trace opened is %q, want %s", meta, worst)
	}
	if got := tb.text(t, "#c-errors .n"); got != "9" {
		t.Errorf("the trace shows %s errors, want 9", got)
	}
	var errRows int
	tb.eval(t, `document.querySelectorAll("#sizer .row.err").length`, &errRows)
	if errRows != 9 {
		t.Errorf("%d rows with an error in the timeline, want 9", errRows)
	}
	tb.do(t, chromedp.Click(`#back`, chromedp.ByID), chromedp.WaitVisible(`#ov-table`, chromedp.ByID))
	var focused string
	tb.eval(t, `document.activeElement.tagName === "A" ? document.activeElement.textContent : "a " + document.activeElement.tagName + " element"`, &focused)
	if focused != worst {
		t.Errorf("back on the overview, the focus is on %q, want the trace's link", focused)
	}

	// By the keyboard: Enter on a row's link opens its trace too.
	tb.do(t, chromedp.Focus(`#ov-table tbody tr:nth-child(2) td.name a`, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#trace-meta`, chromedp.ByQuery))
	if meta := tb.text(t, "#trace-meta b"); !strings.HasSuffix(meta, "t0003.jsonl") {
		t.Errorf("Enter on the second row opened %q, want t0003.jsonl", meta)
	}
	tb.do(t, chromedp.Click(`#back`, chromedp.ByID), chromedp.WaitVisible(`#ov-table`, chromedp.ByID))

	// Back from a trace whose row is past the rows drawn: its row is drawn
	// and has the focus.
	tb.do(t, chromedp.Evaluate(`location.hash = "#t1500"`, nil), chromedp.WaitVisible(`#back`, chromedp.ByID))
	tb.do(t, chromedp.Click(`#back`, chromedp.ByID), chromedp.WaitVisible(`#ov-table`, chromedp.ByID))
	tb.eval(t, `document.activeElement.tagName === "A" ? document.activeElement.textContent : "a " + document.activeElement.tagName + " element"`, &focused)
	if !strings.HasSuffix(focused, "t1499.jsonl") {
		t.Errorf("back from trace 1500 (t1499.jsonl), the focus is on %q", focused)
	}

	// Sorted by name, the first trace; again, the last.
	tb.do(t, chromedp.Click(`#ov-table button[data-key="name"]`, chromedp.ByQuery))
	if got := tb.text(t, "#ov-table tbody tr:first-child td.name a"); !strings.HasSuffix(got, "t0000.jsonl") {
		t.Errorf("sorted by name, the first trace is %q", got)
	}
	var sorted string
	tb.eval(t, `document.querySelector('#ov-table button[data-key="name"]').parentElement.getAttribute("aria-sort")`, &sorted)
	if sorted != "ascending" {
		t.Errorf("the name column's aria-sort is %q", sorted)
	}
	tb.do(t, chromedp.Click(`#ov-table button[data-key="name"]`, chromedp.ByQuery))
	if got := tb.text(t, "#ov-table tbody tr:first-child td.name a"); !strings.HasSuffix(got, "t1999.jsonl") {
		t.Errorf("sorted by name, descending, the first trace is %q", got)
	}

	// Filters: the traces with a schema finding (all but those with none),
	// then one found by its name.
	tb.eval(t, `(function(){var s=document.getElementById("ov-rule"); s.value="r:schema"; s.dispatchEvent(new Event("change")); return s.value})()`, new(string))
	withErrors := 0
	for i := range 2000 {
		if i%4 != 0 || i == 1234 {
			withErrors++
		}
	}
	if got, want := tb.text(t, "#ov-shown"), fmt.Sprintf("of %s traces (of 2,000 listed)", comma(withErrors)); !strings.Contains(got, want) {
		t.Errorf("filtered by rule schema: %q, want %q", got, want)
	}
	tb.do(t, chromedp.SendKeys(`#ov-q`, "t0042", chromedp.ByID),
		chromedp.WaitVisible(`//p[@id="ov-shown"][starts-with(text(), "Showing 1 trace")]`))
	if got := tb.text(t, "#ov-table tbody"); !strings.Contains(got, "t0042.jsonl") {
		t.Errorf("searching t0042 shows %q", got)
	}
	if bad := tb.problems(); len(bad) > 0 {
		t.Fatalf("the page misbehaved: %v", bad)
	}
}

// lineWithoutMessage follows the #L link of a line that has no row and
// returns what the panel says of it.
func lineWithoutMessage(t *testing.T, tb *tab, line int) string {
	t.Helper()
	var got string
	tb.eval(t, fmt.Sprintf(`(function () {
		history.replaceState(null, "", "#L%d");
		window.dispatchEvent(new HashChangeEvent("hashchange"));
		return document.querySelector("#detail").innerText;
	})()`, line), &got)
	return got
}

// TestHTMLReportLineWithoutMessage: a link to a line with no message says
// why, truly: past the end of the trace, or a line of no message of its
// own; never a note that is not on the page.
func TestHTMLReportLineWithoutMessage(t *testing.T) {
	tb := newBrowser(t)
	p := htmlReport(t, t.TempDir(), "../../fixtures/arcan/valid/tool-run.sse")
	tb.open(t, p, "")
	if got := lineWithoutMessage(t, tb, 999); !strings.Contains(got, "This trace has 58 lines: there is no line 999.") {
		t.Errorf("line 999 of 58 says %q", got)
	}
	if got := lineWithoutMessage(t, tb, 2); !strings.Contains(got, "Line 2 holds no message") {
		t.Errorf("line 2, blank, says %q", got)
	}
	var notes int
	tb.eval(t, `document.querySelectorAll("#omitted, .notice").length`, &notes)
	if notes != 0 {
		t.Errorf("%d notices on a trace shown whole", notes)
	}
	if bad := tb.problems(); len(bad) > 0 {
		t.Fatalf("the page misbehaved: %v", bad)
	}
}

// TestHTMLFolderReportBounded: past its bounds, the folder report says
// what it left out and how to see it: on the overview, the traces not
// listed and those whose messages it does not hold; on such a trace's
// page, its counts and the command that makes its own report.
func TestHTMLFolderReportBounded(t *testing.T) {
	tb := newBrowser(t)
	dir := t.TempDir()
	folder, worst := fleetFolder(t, dir, 40, 7)
	var traces []string
	for i := range 40 {
		traces = append(traces, filepath.Join(folder, fmt.Sprintf("t%04d.jsonl", i)))
	}
	p := boundedReport(t, dir, htmlreport.Options{MaxListed: 12, MaxDetailed: 3}, traces...)
	tb.open(t, p, "")
	note := tb.text(t, "#ov-left")
	for _, want := range []string{"The table lists the 12 traces with the most errors and warnings (at most 12). The other 28 traces", "holds the messages of the 3 traces at the top of the table", "for the other 9 listed traces it shows the counts", "--shard K/N"} {
		if !strings.Contains(note, want) {
			t.Errorf("the overview's notice lacks %q:\n%s", want, note)
		}
	}
	if got := tb.text(t, "#ov-table tbody tr:first-child td.name"); got != worst {
		t.Errorf("the first row is %q, want %s with its messages", got, worst)
	}
	var left int
	tb.eval(t, `document.querySelectorAll("#ov-table tbody td.name .left").length`, &left)
	if left != 9 {
		t.Errorf("%d rows marked as not held, want 9", left)
	}
	// The fourth row's trace is not held: its page says how to see it.
	tb.do(t, chromedp.Click(`#ov-table tbody tr:nth-child(4) td.name a`, chromedp.ByQuery), chromedp.WaitVisible(`#left-out`, chromedp.ByID))
	name := tb.text(t, "#trace-meta b")
	if got := tb.text(t, "#left-out code"); got != "validate --format html "+name+" > report.html" {
		t.Errorf("the way to see %s is %q", name, got)
	}
	if got := tb.text(t, "#c-errors .n"); got != "3" {
		t.Errorf("the trace not held shows %s errors, want 3", got)
	}
	var hidden bool
	tb.eval(t, `document.getElementById("tl").offsetParent === null`, &hidden)
	if !hidden {
		t.Error("an empty timeline is shown for a trace not held")
	}
	if bad := tb.problems(); len(bad) > 0 {
		t.Fatalf("the page misbehaved: %v", bad)
	}
}
