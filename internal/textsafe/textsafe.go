// Package textsafe makes text from schemas and traces inert where it is
// shown or copied: on a terminal, in a CI log, in a Go comment. Control
// characters, line and paragraph separators and the bidirectional controls
// that reorder what an editor displays ("Trojan Source") become visible
// escapes, and JSON strings are quoted as JSON, not as Go, quotes them.
package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Unsafe reports the characters Escape rewrites, besides tab: C0 controls,
// DEL, C1 controls, U+2028 and U+2029, and the bidirectional controls
// (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f,
		r == 0x2028, r == 0x2029,
		r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Escape returns s with each unsafe character (Unsafe, tab excepted) shown
// as a Go escape (\n, \r, \x1b, \u202e) and each byte that is not UTF-8 as
// \xNN; backslashes and everything else are unchanged. The result holds no
// line break, so text from input cannot start a line of its own (a CI
// workflow command such as ::error) or end a // comment. It returns s
// itself when nothing needs escaping.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || r != '\t' && Unsafe(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s) + 16)
	sb.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&sb, `\x%02x`, s[i])
		case r == '\t':
			sb.WriteByte('\t')
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, r)
		case Unsafe(r):
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	return sb.String()
}

// QuoteJSON returns s as a JSON string literal: quote and backslash
// escaped, control characters as \n, \r, \t, \b, \f or \u00XX, and DEL, C1
// controls, U+2028, U+2029 and the bidirectional controls as \uXXXX, so the
// literal is valid JSON, stands for s exactly, and shows nothing raw that a
// terminal or an editor would act on. A byte that is not UTF-8 becomes
// \ufffd, as encoding/json writes it. For plain ASCII it equals
// strconv.Quote.
func QuoteJSON(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + 2)
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			sb.WriteString(`\ufffd`)
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\b':
			sb.WriteString(`\b`)
		case r == '\f':
			sb.WriteString(`\f`)
		case Unsafe(r):
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	sb.WriteByte('"')
	return sb.String()
}
