package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"sync"
)

// A baseline is the findings a team already knows of, so that adopting the
// validator on an existing corpus fails a build only on new findings. A
// finding is known when the baseline holds one with the same file, rule,
// JSON pointer and message; the line is not compared, so editing a trace
// above a known finding does not make it new. Each entry stands for as many
// findings as its count. File names are kept relative to the baseline
// file's folder, so the baseline works from any working directory.
//
// The file is JSON:
//
//	{"version": 1, "findings": [{"file": "traces/a.jsonl", "rule": "schema", "pointer": "/params/x", "message": "…", "count": 1}]}

// BaselineVersion is the format version WriteBaseline writes and
// ReadBaseline accepts.
const BaselineVersion = 1

// BaselineEntry is one known finding (or count identical ones).
type BaselineEntry struct {
	File    string `json:"file"`
	Rule    string `json:"rule"`
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	Count   int    `json:"count"`
}

type baselineFile struct {
	Version  int             `json:"version"`
	Findings []BaselineEntry `json:"findings"`
}

type baselineKey struct{ file, rule, pointer, message string }

// Baseline matches findings against known ones. It is safe for concurrent
// use.
type Baseline struct {
	dir     string
	mu      sync.Mutex
	left    map[baselineKey]int
	matched int
}

// MaxBaselineSize is the largest baseline ReadBaseline reads: room for
// hundreds of thousands of distinct known findings, and a bound on what a
// baseline file costs to load.
const MaxBaselineSize = 64 << 20

// ReadBaseline reads a baseline file whose file names are relative to dir
// (the folder of the baseline file). A file over MaxBaselineSize, or with
// anything but white space after its JSON value, is an error.
func ReadBaseline(r io.Reader, dir string) (*Baseline, error) {
	lr := &io.LimitedReader{R: r, N: MaxBaselineSize + 1}
	dec := json.NewDecoder(lr)
	dec.DisallowUnknownFields()
	tooLarge := func(err error) error {
		if lr.N <= 0 {
			return fmt.Errorf("reading baseline: the file is larger than %d MiB, the most a baseline may be; hold back fewer findings (fix some, or --disable a rule) or split the traces between baselines", MaxBaselineSize>>20)
		}
		return fmt.Errorf("reading baseline: %w", err)
	}
	var bf baselineFile
	if err := dec.Decode(&bf); err != nil {
		return nil, tooLarge(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil || lr.N > 0 {
			return nil, fmt.Errorf("reading baseline: something follows the JSON object at byte %d: a baseline is one JSON object", dec.InputOffset())
		}
		return nil, tooLarge(err)
	}
	if bf.Version != BaselineVersion {
		return nil, fmt.Errorf("reading baseline: version %d, want %d", bf.Version, BaselineVersion)
	}
	b := &Baseline{dir: dir, left: map[baselineKey]int{}}
	for i, e := range bf.Findings {
		if e.File == "" || e.Rule == "" || e.Count < 1 {
			return nil, fmt.Errorf("reading baseline: finding %d needs a file, a rule and a count of at least 1", i)
		}
		b.left[baselineKey{e.File, e.Rule, e.Pointer, e.Message}] += e.Count
	}
	return b, nil
}

// Matched is the number of findings the baseline has held back so far.
func (b *Baseline) Matched() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.matched
}

// baselineFileName is name relative to dir, with forward slashes; "-"
// (standard input) stays as it is.
func baselineFileName(dir, name string) string {
	if name == "-" || dir == "" {
		return filepath.ToSlash(name)
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return filepath.ToSlash(name)
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// BaselineWriter collects findings for a new baseline. It is safe for
// concurrent use.
type BaselineWriter struct {
	dir    string
	mu     sync.Mutex
	counts map[baselineKey]int
}

// NewBaselineWriter returns a writer whose file names will be relative to
// dir (the folder the baseline file is written to).
func NewBaselineWriter(dir string) *BaselineWriter {
	return &BaselineWriter{dir: dir, counts: map[baselineKey]int{}}
}

// Add records f; io findings are not recorded.
func (w *BaselineWriter) Add(f Finding) {
	if f.Rule == RuleIO {
		return
	}
	k := baselineKey{baselineFileName(w.dir, f.File), f.Rule, f.Pointer, f.Message}
	w.mu.Lock()
	w.counts[k]++
	w.mu.Unlock()
}

// Len is the number of findings recorded.
func (w *BaselineWriter) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.counts {
		n += c
	}
	return n
}

// Encode returns the baseline as JSON, sorted by file, rule, pointer and
// message so that it diffs well under version control.
func (w *BaselineWriter) Encode() ([]byte, error) {
	w.mu.Lock()
	bf := baselineFile{Version: BaselineVersion, Findings: make([]BaselineEntry, 0, len(w.counts))}
	for k, n := range w.counts {
		bf.Findings = append(bf.Findings, BaselineEntry{File: k.file, Rule: k.rule, Pointer: k.pointer, Message: k.message, Count: n})
	}
	w.mu.Unlock()
	sort.Slice(bf.Findings, func(i, j int) bool {
		a, b := bf.Findings[i], bf.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Message < b.Message
	})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(bf); err != nil {
		return nil, fmt.Errorf("encoding baseline: %w", err)
	}
	return buf.Bytes(), nil
}
