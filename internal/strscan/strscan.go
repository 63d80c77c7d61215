// Package strscan finds, eight bytes at a time, where the plain part of a
// JSON string ends: the JSON decoders of this module spend most of their
// time walking string contents, and most of those are plain ASCII.
package strscan

import (
	"encoding/binary"
	"math/bits"
)

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
		if m := specials(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			// The lowest marked byte is the first special one.
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return i
}

// specials marks, with its high bit, each of the eight bytes of x (the
// first in the lowest byte) that is '"', '\\', below 0x20 or above 0x7f. A
// byte that is zero after the XOR sets its high bit in (v - ones) &^ v; so
// does a byte below 0x20 in x - 0x20*ones. Borrows run from a byte to the
// ones after it, so they can mark bytes after a true hit, never one before
// it: the lowest mark is exact, and 0 means no special byte.
func specials(x uint64) uint64 {
	q := x ^ ('"' * ones)
	s := x ^ ('\\' * ones)
	return ((q-ones)&^q | (s-ones)&^s | (x - 0x20*ones) | x) & highs
}
