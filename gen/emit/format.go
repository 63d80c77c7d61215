package emit

import (
	"bytes"
	"go/format"
	"go/scanner"
	"go/token"
)

// formatChunk is about how much source formatChunked hands to go/format at
// once.
const formatChunk = 256 << 10

// formatChunked returns src formatted as gofmt formats it, a run of
// top-level declarations at a time rather than the whole file at once:
// go/format's syntax tree and printer state cost many times the source, so
// a schema of 100,000 small types took gigabytes when its 280 MB of Go
// were formatted in one piece. Runs are cut only before a declaration
// whose doc comment starts on a line of its own after the end of the
// declaration before it: gofmt puts exactly one blank line there whatever
// the source holds, and nothing in one declaration depends on another, so
// the pieces joined by that blank line are the whole file formatted.
// The first run holds the package clause and the imports. size is the
// least a run holds before it may be cut; the result has room for extra
// more bytes.
func formatChunked(src []byte, size, extra int) ([]byte, error) {
	cuts := declCuts(src, size)
	if len(cuts) == 0 {
		return format.Source(src)
	}
	out := make([]byte, 0, len(src)+len(src)/16+extra)
	first, err := format.Source(src[:cuts[0]])
	if err != nil {
		return nil, err
	}
	out = append(out, first...)
	const clause = "package p\n\n"
	buf := make([]byte, 0, 2*size)
	for i, c := range cuts {
		end := len(src)
		if i+1 < len(cuts) {
			end = cuts[i+1]
		}
		buf = append(append(buf[:0], clause...), src[c:end]...)
		f, err := format.Source(buf)
		if err != nil || !bytes.HasPrefix(f, []byte(clause)) {
			// Report the error as the whole file would.
			return format.Source(src)
		}
		out = append(out, '\n')
		out = append(out, f[len(clause):]...)
	}
	return out, nil
}

// declCuts returns the offsets, after the imports, of the start of the
// lines where a top-level declaration's doc comment begins right after the
// declaration before it ended, at least size bytes apart.
func declCuts(src []byte, size int) []int {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	var cuts []int
	depth := 0
	last := 0 // the last cut (or 0)
	afterImports := false
	semiLine := -1    // the line of the semicolon that ended the last declaration
	docStart := -1    // where the comment group after it began
	docLine := -1     // the line of the last comment of that group
	seenDecl := false // a declaration other than an import has begun
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
			continue
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
			continue
		}
		if depth != 0 {
			continue
		}
		line := file.Line(pos)
		switch tok {
		case token.SEMICOLON:
			semiLine, docStart, docLine = line, -1, -1
			continue
		case token.COMMENT:
			switch {
			case semiLine < 0 || line <= semiLine:
				// A comment on the line a declaration ended on.
				docStart = -2
			case docStart == -1:
				docStart, docLine = file.Offset(pos), lastLine(file, pos, src)
			case docStart >= 0 && line == docLine+1:
				docLine = lastLine(file, pos, src)
			default:
				docStart = -2 // not one group: a comment stands apart
			}
			continue
		case token.IMPORT:
			afterImports = true
		case token.FUNC, token.TYPE, token.VAR, token.CONST:
			if afterImports || seenDecl {
				if docStart >= 0 && line == docLine+1 {
					at := lineStart(src, docStart)
					if at-last >= size && (len(cuts) > 0 || at > 0) {
						cuts = append(cuts, at)
						last = at
					}
				}
			}
			seenDecl = true
		}
		semiLine, docStart, docLine = -1, -1, -1
	}
	return cuts
}

// lastLine is the line a comment starting at pos ends on.
func lastLine(file *token.File, pos token.Pos, src []byte) int {
	off := file.Offset(pos)
	n := file.Line(pos)
	if bytes.HasPrefix(src[off:], []byte("/*")) {
		if end := bytes.Index(src[off:], []byte("*/")); end >= 0 {
			n += bytes.Count(src[off:off+end], []byte("\n"))
		}
	}
	return n
}

// lineStart is the offset of the start of the line holding offset off.
func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}
