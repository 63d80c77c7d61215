package protocol

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
	"github.com/agentproto/agentproto/pkg/wire"
)

// Pointer renders a location as a JSON pointer ("" for the whole value);
// see package jsonpointer.
func Pointer(loc []string) string { return jsonpointer.Format(loc) }

// SplitPointer splits a JSON pointer into its unescaped tokens: none for
// "" or for a string that is not a pointer, one (the empty member name)
// for "/"; see package jsonpointer.
func SplitPointer(p string) []string {
	toks, _ := jsonpointer.Split(p)
	return toks
}

// Lookup follows loc into v; nil if it leads nowhere.
func Lookup(v any, loc []string) any {
	for _, t := range loc {
		if v = child(v, t); v == nil {
			return nil
		}
	}
	return v
}

// child returns the member or element of v that token t names, or nil.
func child(v any, t string) any {
	switch c := v.(type) {
	case map[string]any:
		return c[t]
	case []any:
		// An index is written in decimal without leading zeros, as the
		// Doc reads it (Message.At gives the same either way).
		i, err := strconv.Atoi(t)
		if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != t {
			return nil
		}
		return c[i]
	}
	return nil
}

// Located is a value found by Resolve, with where it was.
type Located struct {
	Loc   []string
	Value any
}

// Resolve follows a pointer's tokens, where "*" stands for every array
// element (and every member of an object, in key order), returning every
// value found.
func Resolve(v any, toks []string) []Located { return resolve(v, toks, nil) }

func resolve(v any, toks []string, at []string) []Located {
	if len(toks) == 0 {
		return []Located{{append([]string(nil), at...), v}}
	}
	t := toks[0]
	switch c := v.(type) {
	case map[string]any:
		if t == "*" {
			keys := make([]string, 0, len(c))
			for k := range c {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var out []Located
			for _, k := range keys {
				out = append(out, resolve(c[k], toks[1:], append(at, k))...)
			}
			return out
		}
		if cv, ok := c[t]; ok {
			return resolve(cv, toks[1:], append(at, t))
		}
	case []any:
		if t == "*" {
			var out []Located
			for i, cv := range c {
				out = append(out, resolve(cv, toks[1:], append(at, strconv.Itoa(i)))...)
			}
			return out
		}
		if i, err := strconv.Atoi(t); err == nil && i >= 0 && i < len(c) && strconv.Itoa(i) == t {
			return resolve(c[i], toks[1:], append(at, t))
		}
	}
	return nil
}

// Strings returns the string values a pointer (with "*" tokens) reaches.
func Strings(v any, ptr string) []string {
	var out []string
	for _, f := range Resolve(v, SplitPointer(ptr)) {
		if s, ok := f.Value.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// At follows a JSON pointer into v; nil if it leads nowhere. Pointers
// without escapes are followed without allocating.
func At(v any, ptr string) any {
	if !jsonpointer.Walk(ptr, func(tok string) bool { v = child(v, tok); return v != nil }) {
		return nil
	}
	return v
}

// AbsentSomewhere reports whether the last token of the pointer is missing
// from an object the rest of it reaches.
func AbsentSomewhere(v any, toks []string) bool {
	if len(toks) == 0 {
		return false
	}
	for _, p := range Resolve(v, toks[:len(toks)-1]) {
		if pm, ok := p.Value.(map[string]any); ok {
			if _, has := pm[toks[len(toks)-1]]; !has {
				return true
			}
		}
	}
	return false
}

// JSONEqual reports whether two parsed values are the same JSON.
func JSONEqual(a, b any) bool {
	if as, ok := a.(string); ok { // the common case: a member against a string
		bs, ok := b.(string)
		return ok && as == bs
	}
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ab) == string(bb)
}

// HasPrefix reports whether loc starts with prefix.
func HasPrefix(loc, prefix []string) bool {
	if len(prefix) > len(loc) {
		return false
	}
	for i := range prefix {
		if loc[i] != prefix[i] {
			return false
		}
	}
	return true
}

// IntValue reads an integer JSON number.
func IntValue(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || len(n) > 20 {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// Truthy reports whether an advertised capability is on: true, or an
// object (capabilities advertised as objects are on by their presence).
func Truthy(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case map[string]any:
		return true
	}
	return false
}

// MaxEcho is the most characters of input a message repeats.
const MaxEcho = 80

// Display renders a JSON value for a message: strings quoted with every
// control character escaped, the rest as compact JSON, anything longer
// than MaxEcho cut with "...". Input never reaches the output raw.
func Display(v any) string {
	var s string
	switch v := v.(type) {
	case string:
		return Quote(v)
	case json.Number:
		s = string(v)
	case nil:
		s = "null"
	default:
		b, err := json.Marshal(v)
		if err != nil {
			s = fmt.Sprint(v)
		} else {
			s = string(b)
		}
	}
	return cut(s)
}

// Quote renders a string from the input for a message: quoted, control
// characters escaped, cut to MaxEcho characters.
func Quote(s string) string {
	if len(s) > 4*MaxEcho {
		s = s[:4*MaxEcho] // Quote's work stays bounded by the cut
	}
	return cut(strconv.Quote(s))
}

func cut(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	n := MaxEcho - 3
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// Describe names the JSON kind of a value ("an object", "a string").
func Describe(v any) string { return wire.Describe(v) }
