package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// input is one trace to check, or a path that cannot be one.
type input struct {
	name string // as the user gave it, or as found below a named folder
	err  error  // set when the path cannot be read as a trace
}

// traceExts are the extensions of files taken as traces when a folder is
// walked, before or after a .gz.
var traceExts = []string{".jsonl", ".ndjson", ".sse"}

// sidecarExts are the companions of a trace that are never traces
// themselves: directions, connection ids, expected findings.
var sidecarExts = []string{".dir", ".conn", ".expect"}

// expand turns the command-line names into traces: "-" and files stay as
// they are; folders are walked, in name order, for the files that hold
// traces; sidecars and documentation are skipped, whether found in a folder
// or named (as a glob such as traces/* names them).
func expand(names []string) []input {
	var out []input
	for _, n := range names {
		if n == "-" {
			out = append(out, input{name: n})
			continue
		}
		st, err := os.Stat(n)
		switch {
		case err != nil:
			out = append(out, input{name: n, err: fmt.Errorf("cannot open the trace: %w", unwrapPath(err))})
		case st.IsDir():
			out = append(out, walk(n)...)
		case st.Mode().IsRegular():
			if !companion(n) {
				out = append(out, input{name: n})
			}
		case st.Mode()&fs.ModeNamedPipe != 0:
			out = append(out, input{name: n}) // validate <(zcat trace.gz)
		default:
			out = append(out, input{name: n, err: fmt.Errorf("not a regular file (%s): a trace is a file, a folder of traces, or - for standard input", kindOf(st.Mode()))})
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

// walk lists the traces below dir: files with a trace extension (also
// gzip-compressed), and files without a known extension whose first bytes
// look like a trace. Hidden folders (.git) and sidecars are skipped.
// Unreadable entries are inputs with an error; a folder with no trace is one.
func walk(dir string) []input {
	var out []input
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			out = append(out, input{name: p, err: fmt.Errorf("cannot read: %w", unwrapPath(err))})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		base := d.Name()
		if d.IsDir() {
			if p != dir && strings.HasPrefix(base, ".") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(base, ".") || !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		if traceFile(p) {
			out = append(out, input{name: p})
		}
		return nil
	})
	if err != nil {
		out = append(out, input{name: dir, err: fmt.Errorf("cannot walk the folder: %w", unwrapPath(err))})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	if len(out) == 0 {
		out = append(out, input{name: dir, err: fmt.Errorf("the folder holds no trace (files ending in %s, optionally .gz)", strings.Join(traceExts, ", "))})
	}
	return out
}

// traceFile decides whether a file found in a folder is a trace: a trace
// extension (before an optional .gz), or no extension and a start that
// looks like a trace. Other extensions (.go, .yaml, .tar.gz) are not traces.
func traceFile(p string) bool {
	if companion(p) {
		return false
	}
	inner := strings.TrimSuffix(strings.ToLower(filepath.Base(p)), ".gz")
	for _, e := range traceExts {
		if strings.HasSuffix(inner, e) {
			return true
		}
	}
	if filepath.Ext(inner) != "" {
		return false
	}
	return looksLikeTrace(p)
}

// looksLikeTrace reads the first bytes of an extensionless file: gzip
// data, a JSON object or an SSE field.
func looksLikeTrace(p string) bool {
	f, err := os.Open(p)
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
