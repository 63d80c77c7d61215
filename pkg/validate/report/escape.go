package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentproto/agentproto/internal/textsafe"
)

// The escaping every format starts from: text shows control characters as
// Go escapes (\n, \x1b, \u0085); a format that reserves more ASCII
// characters (GitHub's workflow commands reserve %, CR, LF and, in
// properties, : and ,) escapes those its own way first. JSON's is
// escapeJSONLine (json.go), XML's xmlEscape.

// EscapeText makes s inert on a terminal: control characters (C0, DEL,
// C1), Unicode line and paragraph separators and bidirectional controls
// become Go-style escapes (\n, \t, \x1b, \u0085, \u202e); bytes that are
// not UTF-8 become \xNN. Everything else, backslashes included, is
// unchanged, and s itself is returned when nothing needs escaping.
func EscapeText(s string) string { return escape(s, nil) }

// reserved maps the ASCII characters a format reserves to their escapes
// ("" for a character it does not reserve); nil reserves none.
type reserved func(c byte) string

// escape returns s escaped as EscapeText does, the characters r reserves
// escaped by r; s itself when nothing needs escaping.
func escape(s string, r reserved) string {
	i := plainPrefix(s, r)
	if i == len(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 16)
	sb.WriteString(s[:i])
	writeEscapedFrom(&sb, s, i, r)
	return sb.String()
}

// writeEscaped writes s to sb as escape returns it.
func writeEscaped(sb *strings.Builder, s string, r reserved) {
	i := plainPrefix(s, r)
	sb.WriteString(s[:i])
	if i < len(s) {
		writeEscapedFrom(sb, s, i, r)
	}
}

// plainPrefix is the length of the start of s that needs no escape.
func plainPrefix(s string, r reserved) int {
	i := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || r != nil && r(c) != "" {
				return i
			}
			i++
			continue
		}
		ru, size := utf8.DecodeRuneInString(s[i:])
		if ru == utf8.RuneError && size <= 1 || unsafeRune(ru) {
			return i
		}
		i += size
	}
	return i
}

// writeEscapedFrom writes s[i:] to sb, escaped.
func writeEscapedFrom(sb *strings.Builder, s string, i int, r reserved) {
	for i < len(s) {
		ru, size := utf8.DecodeRuneInString(s[i:])
		if ru < utf8.RuneSelf && r != nil {
			if e := r(byte(ru)); e != "" {
				sb.WriteString(e)
				i += size
				continue
			}
		}
		switch {
		case ru == utf8.RuneError && size <= 1:
			fmt.Fprintf(sb, `\x%02x`, s[i])
		case ru == '\n':
			sb.WriteString(`\n`)
		case ru == '\r':
			sb.WriteString(`\r`)
		case ru == '\t':
			sb.WriteString(`\t`)
		case ru < 0x20 || ru == 0x7f:
			fmt.Fprintf(sb, `\x%02x`, ru)
		case unsafeRune(ru):
			fmt.Fprintf(sb, `\u%04x`, ru)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
}

// unsafeRune reports the non-ASCII characters a terminal or an editor may
// act on rather than show: C1 controls, line and paragraph separators, and
// the bidirectional controls that reorder what is displayed.
func unsafeRune(r rune) bool { return r >= 0x80 && textsafe.Unsafe(r) }
