// Package jsonpointer reads and writes JSON pointers (RFC 6901), the one
// implementation the module's packages share.
//
// A pointer is "" (the whole document) or a sequence of reference tokens,
// each introduced by "/": "/" is one token, the empty member name, not
// the whole document, and "/a/" ends in an empty member name too. In a
// token, "~" is written "~0" and "/" is written "~1"; a "~" followed by
// anything else is not a pointer, nor is a non-empty string that does not
// start with "/".
package jsonpointer

import (
	"strconv"
	"strings"
)

// Escape escapes a member name for use as a reference token.
func Escape(tok string) string {
	if strings.IndexByte(tok, '~') < 0 && strings.IndexByte(tok, '/') < 0 {
		return tok // member names almost always are plain
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// Unescape turns a reference token back into a member name. "~1" is
// read before "~0", so "~01" is the name "~1".
func Unescape(tok string) string {
	if strings.IndexByte(tok, '~') < 0 {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// Join appends a member name to a pointer.
func Join(ptr, name string) string { return ptr + "/" + Escape(name) }

// JoinIndex appends an array index to a pointer.
func JoinIndex(ptr string, i int) string { return ptr + "/" + strconv.Itoa(i) }

// Format is the pointer of a sequence of member names and indexes ("" for
// none: the whole document).
func Format(toks []string) string {
	var sb strings.Builder
	for _, t := range toks {
		sb.WriteByte('/')
		sb.WriteString(Escape(t))
	}
	return sb.String()
}

// Valid reports whether p is a JSON pointer: "" or "/" followed by tokens
// whose every "~" is followed by "0" or "1".
func Valid(p string) bool {
	if p == "" {
		return true
	}
	if p[0] != '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || p[i+1] != '0' && p[i+1] != '1') {
			return false
		}
	}
	return true
}

// Split returns the unescaped reference tokens of p: none for "", one
// (the empty name) for "/". ok is false when p is not a pointer (see
// Valid), and then there are none.
func Split(p string) (toks []string, ok bool) {
	if !Valid(p) {
		return nil, false
	}
	if p == "" {
		return nil, true
	}
	toks = strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = Unescape(t)
	}
	return toks, true
}

// Walk calls step with each unescaped reference token of p in turn, until
// step returns false, and reports whether it went through them all; a
// string that is not a pointer stops at once. A pointer without escapes is
// walked without allocating.
func Walk(p string, step func(tok string) bool) bool {
	if strings.IndexByte(p, '~') >= 0 {
		toks, ok := Split(p)
		if !ok {
			return false
		}
		for _, tok := range toks {
			if !step(tok) {
				return false
			}
		}
		return true
	}
	for p != "" {
		if p[0] != '/' {
			return false
		}
		p = p[1:]
		tok := p
		if i := strings.IndexByte(p, '/'); i >= 0 {
			tok, p = p[:i], p[i:]
		} else {
			p = ""
		}
		if !step(tok) {
			return false
		}
	}
	return true
}
