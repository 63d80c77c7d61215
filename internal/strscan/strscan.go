// Package strscan finds, eight bytes at a time, where the plain part of a
// JSON string ends: the JSON decoders of this module spend most of their
// time walking string contents, and most of those are plain ASCII.
package strscan

import "encoding/binary"

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// Plain returns the length of the longest prefix of b that holds no byte a
// JSON string's contents treat specially: no '"', no '\\', no control
// character (below 0x20) and no byte of a multi-byte UTF-8 sequence
// (0x80 and above).
func Plain(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if special(binary.LittleEndian.Uint64(b[i:])) {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return i
}

// special reports whether any of the eight bytes of x is '"', '\\', below
// 0x20 or above 0x7f. A byte that is zero after the XOR sets its high bit in
// (v - ones) &^ v; so does a byte below 0x20 in x - 0x20*ones. Borrows can
// mark bytes after a true hit, never without one, and only whether there is
// a hit matters.
func special(x uint64) bool {
	q := x ^ ('"' * ones)
	s := x ^ ('\\' * ones)
	return ((q-ones)&^q|(s-ones)&^s|(x-0x20*ones)|x)&highs != 0
}
