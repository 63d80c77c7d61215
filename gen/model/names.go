package model

import (
	"strconv"
	"strings"
	"unicode"
)

// initialisms are written in capitals in Go names, as Go style asks.
var initialisms = map[string]bool{
	"ACL": true, "ACP": true, "API": true, "ARCP": true, "ASCII": true, "CPU": true, "CSS": true,
	"DNS": true, "EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true,
	"IDS": true, "IP": true, "JSON": true, "JWT": true, "LHS": true, "MCP": true, "MIME": true, "OS": true,
	"QPS": true, "RAM": true, "RHS": true, "RPC": true, "SLA": true, "SMTP": true, "SQL": true,
	"SSE": true, "SSH": true, "TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true,
	"UID": true, "URI": true, "URL": true, "UTF8": true, "UUID": true, "VM": true, "XML": true,
	"XMPP": true, "XSRF": true, "XSS": true,
}

// words splits a JSON name or title into words at separators, case changes
// and letter-digit boundaries: "sessionId" → session Id, "mcp_servers" →
// mcp servers, "HTTPHeader" → HTTP Header.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// GoName turns a JSON name into an exported Go identifier.
func GoName(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		up := strings.ToUpper(w)
		if initialisms[up] {
			b.WriteString(up)
			continue
		}
		// "Ids" is the plural of ID.
		if strings.HasSuffix(up, "IDS") && initialisms[up[:len(up)-1]] && len(w) > 3 {
			b.WriteString(up[:len(up)-1] + "s")
			continue
		}
		if up == "IDS" {
			b.WriteString("IDs")
			continue
		}
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	name := b.String()
	if name == "" {
		return "X"
	}
	if r := []rune(name)[0]; !unicode.IsLetter(r) {
		name = "N" + name
	} else if !unicode.IsUpper(r) {
		// A letter without case (日本) does not export a name.
		name = "X" + name
	}
	return name
}

// reservedMethods are the method names every generated type has; a field
// may not have one of them as its name.
var reservedMethods = map[string]bool{
	"DecodeWire": true, "EncodeWire": true, "EncodeWireFields": true, "CheckWire": true,
	"Validate": true, "MarshalJSON": true, "UnmarshalJSON": true, "Valid": true,
}

// namer hands out unique names in one scope.
type namer struct {
	used map[string]bool
	// claims are the names the package's named schemas (roots and $defs)
	// ask for, decided before any type is made: an inline type or a
	// variant never takes one of them, whatever the traversal order.
	claims map[string]any
}

func newNamer(reserved ...string) *namer {
	n := &namer{used: map[string]bool{}, claims: map[string]any{}}
	for _, r := range reserved {
		n.used[r] = true
	}
	return n
}

// takeClaimed returns the name owner claimed, or, when owner claimed none,
// what take gives.
func (n *namer) takeClaimed(owner any, want string) string {
	if n.claims[want] == owner && !n.used[want] {
		n.used[want] = true
		return want
	}
	return n.take(want)
}

// take returns want if it is free, else the first of the alternatives that
// is, else want with the smallest number suffix that is free.
func (n *namer) take(want string, alternatives ...string) string {
	for _, c := range append([]string{want}, alternatives...) {
		if c != "" && !n.used[c] && n.claims[c] == nil {
			n.used[c] = true
			return c
		}
	}
	for i := 2; ; i++ {
		c := want + strconv.Itoa(i)
		if !n.used[c] && n.claims[c] == nil {
			n.used[c] = true
			return c
		}
	}
}
