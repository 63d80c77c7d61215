// Package suggest finds the name a misspelt one most likely stands for,
// for the "did you mean" part of a finding. Its work is bounded: names
// longer than MaxName are never compared.
package suggest

import (
	"sort"
	"strings"
	"unicode"
)

// MaxName is the longest name compared; a longer one gets no suggestion,
// so that edit distances stay cheap whatever the input.
const MaxName = 64

// Fold lower-cases s and drops separators, so that sessionId, session_id
// and SessionID compare equal.
func Fold(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r == '_' || r == '-' || r == '.' {
			continue
		}
		sb.WriteRune(unicode.ToLower(r))
	}
	return sb.String()
}

// Near returns the known name that name most likely misspells (the same
// name folded, or within edit distance 2), or "".
func Near(name string, known []string) string {
	if len(name) > MaxName {
		return ""
	}
	f := Fold(name)
	if k := sameFolded(f, known); k != "" {
		return k
	}
	best, bestD := "", 3
	for _, k := range known {
		if len(k) > MaxName {
			continue
		}
		if d := Levenshtein(f, Fold(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// NearKey returns the key of obj that most likely stands for the missing
// member want: the same name in another case or spelling (snake_case for
// camelCase), a shortened or lengthened form (modeId for currentModeId), or
// a small typo.
func NearKey(want string, obj map[string]any) string {
	if len(obj) == 0 || len(want) > MaxName {
		return ""
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	return NearMember(want, keys)
}

// NearMember is NearKey over the member names of an object as a list (in
// any order, repeats allowed).
func NearMember(want string, names []string) string {
	if len(want) > MaxName {
		return ""
	}
	keys := make([]string, 0, len(names))
	for _, k := range names {
		if k != want && len(k) <= MaxName {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return nearest(want, keys)
}

// Meant returns the allowed values a string outside them most likely
// stands for: the one it misspells (end-turn for end_turn), else the one
// or two it is the start of (allow for allow_once and allow_always); none
// when nothing is that close.
func Meant(got string, allowed []string) []string {
	if got == "" || len(got) > MaxName {
		return nil
	}
	if near := Near(got, allowed); near != "" && near != got {
		return []string{near}
	}
	f := Fold(got)
	if len(f) < 3 {
		return nil
	}
	var starts []string
	for _, w := range allowed {
		if w != got && strings.HasPrefix(Fold(w), f) {
			starts = append(starts, w)
		}
	}
	if len(starts) > 2 {
		return nil
	}
	return starts
}

// Misspelt returns the member name of the type (from known) that key most
// likely misspells, if key is a close miss but not itself known: a
// different case or separators, or edit distance 1 or 2 for names of five
// or more letters.
func Misspelt(key string, known []string) string {
	if len(key) > MaxName {
		return ""
	}
	for _, k := range known {
		if k == key {
			return ""
		}
	}
	f := Fold(key)
	if k := sameFolded(f, known); k != "" {
		return k
	}
	best, bestD := "", 3
	for _, k := range known {
		fk := Fold(k)
		if len(fk) < 5 || len(f) < 5 || len(k) > MaxName {
			continue
		}
		limit := 2
		if len(fk) < 8 {
			limit = 1
		}
		if d := transposeDistance(f, fk); d <= limit && d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// sameFolded returns the first of known that folds to folded, or "".
func sameFolded(folded string, known []string) string {
	for _, k := range known {
		if Fold(k) == folded {
			return k
		}
	}
	return ""
}

func nearest(want string, keys []string) string {
	w := Fold(want)
	tests := []func(k string) bool{
		func(k string) bool { return Fold(k) == w },
		func(k string) bool {
			f := Fold(k)
			return len(f) >= 3 && (strings.HasSuffix(w, f) || strings.HasSuffix(f, w))
		},
		func(k string) bool {
			f := Fold(k)
			return len(f) >= 3 && len(w) >= 3 && f[0] == w[0] && (subsequence(w, f) || subsequence(f, w))
		},
		func(k string) bool {
			f := Fold(k)
			return len(w) >= 4 && len(f) >= 4 && Levenshtein(f, w) <= 2
		},
	}
	for _, test := range tests {
		for _, k := range keys {
			if test(k) {
				return k
			}
		}
	}
	return ""
}

// subsequence reports whether short's letters appear in long in order.
func subsequence(short, long string) bool {
	if len(short) >= len(long) {
		return false
	}
	i := 0
	for j := 0; j < len(long) && i < len(short); j++ {
		if long[j] == short[i] {
			i++
		}
	}
	return i == len(short)
}

// Levenshtein is the edit distance of a and b (bytes).
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// transposeDistance is the edit distance that counts swapping two adjacent
// letters as one edit (optimal string alignment), the commonest typo.
func transposeDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
