package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// input is one trace to check, or a path that cannot be one.
type input struct {
	name   string // as the user gave it, or as found below a named folder
	err    error  // set when the path cannot be read as a trace
	walked bool   // found in a folder: it must still be a regular file when opened
}

// traceExts are the extensions of files taken as traces when a folder is
// walked, before or after a .gz.
var traceExts = []string{".jsonl", ".ndjson", ".sse"}

// sidecarExts are the companions of a trace that are never traces
// themselves: directions, connection ids, expected findings.
var sidecarExts = []string{".dir", ".conn", ".expect"}

// expand turns the command-line names into traces, one at a time, in
// order: "-" and files stay as they are; folders are walked, one folder at
// a time and in path order, for the files that hold traces; sidecars and
// documentation are skipped, whether found in a folder or named (as a glob
// such as traces/* names them). skip is told each file of the walked
// folders that is not read because nothing marks it as a trace (say,
// notes.txt or capture.log). Nothing is kept of an input once it is
// yielded, so the walk of a folder of a million traces holds one folder's
// listing at a time.
func expand(names []string, skip func(string)) iter.Seq[input] {
	return func(yield func(input) bool) {
		roots := walkRoots(names)
		for _, n := range names {
			if n == "-" {
				if !yield(input{name: n}) {
					return
				}
				continue
			}
			st, err := os.Stat(n)
			var in input
			switch {
			case err != nil:
				in = input{name: n, err: fmt.Errorf("cannot open the trace: %w", unwrapPath(err))}
			case st.IsDir():
				w := walker{roots: roots, skip: skip, yield: yield}
				w.dir(n)
				if w.stopped {
					return
				}
				if w.found {
					continue
				}
				in = input{name: n, err: fmt.Errorf("the folder holds no trace (files ending in %s, optionally .gz)", strings.Join(traceExts, ", "))}
			case st.Mode().IsRegular():
				if companion(n) {
					continue
				}
				in = input{name: n}
			case st.Mode()&fs.ModeNamedPipe != 0:
				in = input{name: n} // validate <(zcat trace.gz)
			default:
				in = input{name: n, err: fmt.Errorf("not a regular file (%s): a trace is a file, a folder of traces, or - for standard input", kindOf(st.Mode()))}
			}
			if !yield(in) {
				return
			}
		}
	}
}

// dedupe drops the names that name a path named before them, once made
// absolute and clean (traces/a.jsonl and ./traces/a.jsonl): a trace given
// twice is checked once.
func dedupe(names []string) []string {
	var out []string
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		k := n
		if n != "-" { // "-" twice is refused before
			if abs, err := filepath.Abs(n); err == nil {
				k = abs
			}
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	return out
}

// unwrapPath drops the path an *fs.PathError repeats: the finding names
// the file already.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m.IsDir():
		return "a folder"
	}
	return "mode " + m.Type().String()
}

// companion reports whether a named file is a sidecar or documentation
// rather than a trace: NAME.dir, NAME.conn and NAME.expect, and README and
// Markdown files. A glob such as traces/* names them beside the traces.
func companion(name string) bool {
	base := filepath.Base(name)
	if strings.HasPrefix(strings.ToUpper(base), "README") || strings.EqualFold(filepath.Ext(base), ".md") {
		return true
	}
	return isSidecar(base)
}

func isSidecar(name string) bool {
	ext := filepath.Ext(name)
	for _, s := range sidecarExts {
		if ext == s {
			return true
		}
	}
	return false
}

// walker walks a named folder for traces: files with a trace extension
// (also gzip-compressed), and files without a known extension whose first
// bytes look like a trace. Hidden folders (.git) and sidecars are skipped.
// Unreadable entries are inputs with an error.
//
// Only regular files are read. A symbolic link is followed only to a
// regular file inside one of the named folders (roots): a link with a trace
// extension to a device, a FIFO, a folder or a file outside them is an
// input with an error, never opened, so that a folder from a pull request
// cannot make the walk read /dev/urandom, wait on a pipe or reach files it
// does not hold. Links to folders are not walked.
//
// The traces come in the order of their paths as strings (a/b.jsonl before
// a/b/c.jsonl), each folder listed when the walk reaches it: a folder's
// entries are sorted with a subfolder's name followed by its separator,
// which is where its files' paths fall.
type walker struct {
	roots   []string
	skip    func(string)
	yield   func(input) bool
	found   bool // an input was yielded
	stopped bool // yield asked to stop
}

func (w *walker) emit(in input) {
	w.found = true
	if !w.yield(in) {
		w.stopped = true
	}
}

// dir walks the folder p.
func (w *walker) dir(p string) {
	ents, err := os.ReadDir(p)
	if err != nil && len(ents) == 0 {
		w.emit(input{name: p, err: fmt.Errorf("cannot read: %w", unwrapPath(err))})
		return
	}
	type entry struct {
		key string
		d   fs.DirEntry
	}
	list := make([]entry, 0, len(ents))
	for _, d := range ents {
		k := d.Name()
		if d.IsDir() {
			k += string(filepath.Separator)
		}
		list = append(list, entry{k, d})
	}
	ents = nil
	sort.Slice(list, func(i, j int) bool { return list[i].key < list[j].key })
	for _, e := range list {
		w.entry(filepath.Join(p, e.d.Name()), e.d)
		if w.stopped {
			return
		}
	}
	if err != nil {
		// Part of the folder was listed.
		w.emit(input{name: p, err: fmt.Errorf("cannot read: %w", unwrapPath(err))})
	}
}

// entry considers one entry of a folder.
func (w *walker) entry(p string, d fs.DirEntry) {
	base := d.Name()
	if d.IsDir() {
		if !strings.HasPrefix(base, ".") {
			w.dir(p)
		}
		return
	}
	if strings.HasPrefix(base, ".") || companion(p) {
		return
	}
	named := hasTraceExt(p)
	switch {
	case d.Type().IsRegular():
	case d.Type()&fs.ModeSymlink != 0:
		if why := linkProblem(p, w.roots); why != "" {
			if named {
				w.emit(input{name: p, err: fmt.Errorf("not read: %s", why)})
			}
			return
		}
	default:
		if named {
			w.emit(input{name: p, err: fmt.Errorf("not a regular file (%s): not read", kindOf(d.Type()))})
		}
		return
	}
	if named || filepath.Ext(strings.TrimSuffix(strings.ToLower(base), ".gz")) == "" && looksLikeTrace(p) {
		w.emit(input{name: p, walked: true})
	} else if w.skip != nil {
		w.skip(p)
	}
}

// walkRoots returns the named folders, with their symbolic links resolved:
// a link found in a walk is followed only to a file inside one of them.
func walkRoots(names []string) []string {
	var roots []string
	for _, n := range names {
		if n == "-" {
			continue
		}
		if st, err := os.Stat(n); err != nil || !st.IsDir() {
			continue
		}
		if r, err := filepath.EvalSymlinks(n); err == nil {
			if abs, err := filepath.Abs(r); err == nil {
				roots = append(roots, abs)
			}
		}
	}
	return roots
}

// linkProblem says why the symbolic link p may not be read as a trace, or
// returns "" when it leads to a regular file inside one of roots.
func linkProblem(p string, roots []string) string {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "a symbolic link that cannot be followed: " + unwrapPath(err).Error()
	}
	st, err := os.Stat(target)
	if err != nil {
		return "a symbolic link that cannot be followed: " + unwrapPath(err).Error()
	}
	if !st.Mode().IsRegular() {
		kind := kindOf(st.Mode())
		if st.IsDir() {
			kind = "a folder"
		}
		return "a symbolic link to " + kind + ", not to a regular file; name the target itself to read it"
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return "a symbolic link that cannot be followed: " + err.Error()
	}
	for _, r := range roots {
		if rel, err := filepath.Rel(r, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return ""
		}
	}
	return "a symbolic link to a file outside the folders named; name the file itself to read it"
}

// hasTraceExt reports whether a file found in a folder is named as a trace:
// a trace extension, before an optional .gz. Other extensions (.go, .yaml,
// .tar.gz) are not traces; a file without an extension is one when its
// start looks like a trace (looksLikeTrace).
func hasTraceExt(p string) bool {
	inner := strings.TrimSuffix(strings.ToLower(filepath.Base(p)), ".gz")
	for _, e := range traceExts {
		if strings.HasSuffix(inner, e) {
			return true
		}
	}
	return false
}

// looksLikeTrace reads the first bytes of an extensionless file: gzip
// data, a JSON object or an SSE field.
func looksLikeTrace(p string) bool {
	f, err := openRegular(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head, _ := bufio.NewReader(f).Peek(512)
	if bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		return true
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	return bytes.HasPrefix(head, []byte("{")) || bytes.HasPrefix(head, []byte("data:")) || bytes.HasPrefix(head, []byte("event:"))
}

// skipped tells on stderr of the files of the walked folders that were
// not read: with verbose each as it is passed, else their count at the end
// of the run (done). A capture saved as .txt or .log is otherwise passed
// over without a word.
type skipped struct {
	w       io.Writer
	verbose bool
	n       int
}

func (s *skipped) add(p string) {
	s.n++
	if s.verbose {
		fmt.Fprintf(s.w, "validate: not read: %s (not a trace by its name: %s, optionally .gz; nor, without an extension, by its first bytes)\n", escapeText(p), strings.Join(traceExts, ", "))
	}
}

func (s *skipped) done() {
	if s.n == 0 || s.verbose {
		return
	}
	n, them := fmt.Sprintf("%d files", s.n), "them"
	if s.n == 1 {
		n, them = "1 file", "it"
	}
	fmt.Fprintf(s.w, "validate: %s of the folders not read: nothing marks %s as a trace (-v names %s; name a file to check it whatever its extension)\n", n, them, them)
}
