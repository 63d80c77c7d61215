package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/agentproto/agentproto/internal/strscan"
	"github.com/agentproto/agentproto/pkg/jsonpointer"
)

// A Doc is one parsed JSON value held as a flat list of nodes over the
// bytes it was parsed from: a container's node is followed by its
// children's (an object's by key, value, key, value...), and each node
// knows where its subtree ends. Reading a member or a string costs no
// allocation beyond the string itself, and a value is built as
// map[string]any and []any only where someone asks for it (Value).
//
// A Doc refers to the bytes it was parsed from: they must not change while
// the Doc is in use. The zero Doc is an empty document (Root is -1).
type Doc struct {
	data  []byte
	nodes []node
	depth int // the nesting limit it was parsed with, for Value
	deep  int // the deepest nesting of arrays and objects in it
}

// node is one value of a Doc.
type node struct {
	kind Type
	esc  bool // a string with escape sequences
	// start and end delimit the value's bytes; for a string, its contents
	// between the quotes.
	start, end uint32
	next       uint32 // the index of the first node after this value's subtree
}

// MaxDocBytes is the longest input a Doc holds: its nodes keep 32-bit
// offsets.
const MaxDocBytes = 1<<32 - 1

// Type is the JSON type of a Doc's value.
type Type uint8

// The JSON types; Invalid is no value at all.
const (
	Invalid Type = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// An Arena parses lines into Docs whose nodes it stores: one allocation
// for the nodes of many lines rather than one a line. The Docs it returns
// stay valid after later calls (it never writes over nodes it has handed
// out, nor moves them); an Arena is not safe for concurrent use. The zero
// Arena is ready.
type Arena struct {
	free   []node   // the unused rest of the current chunk (length 0)
	chunks [][]node // every chunk allocated, for Reset
	next   int      // the chunk to take when free is used up
	keys   []int    // scratch: the key nodes of the objects being parsed
}

// Reset makes the Arena reuse its storage from the start: the Docs it
// returned before must no longer be used.
func (a *Arena) Reset() { a.free, a.next = nil, 0 }

// arenaChunk is how many nodes an Arena allocates at once, at most: its
// first chunk holds firstChunk, and each new one twice the one before, so
// that a few short lines cost little.
const arenaChunk, firstChunk = 4096, 256

// Parse parses data as Parse does (the same values are accepted, with the
// same errors). maxDepth is Parse's nesting limit.
func (a *Arena) Parse(data []byte, maxDepth int) (Doc, error) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	if maxDepth > MaxDepthCeiling {
		maxDepth = MaxDepthCeiling
	}
	if len(data) > MaxDocBytes {
		return Doc{}, &Error{Kind: TooLarge, Msg: fmt.Sprintf("a value of %d bytes, more than the %d this parser reads", len(data), MaxDocBytes)}
	}
	if cap(a.free) == 0 {
		a.free = a.take(0)
	}
	// The Doc's nodes go to the free rest of the chunk. A Doc that
	// outgrows it moves to the next chunk, and one that outgrows half a
	// chunk gets an array of its own (tape.grow).
	t := tape{data: data, maxDepth: maxDepth, nodes: a.free, keys: a.keys[:0], arena: a}
	t.skipSpace()
	ok := t.pos < len(data) && t.value()
	if ok {
		t.skipSpace()
		ok = t.pos == len(data)
	}
	a.keys = t.keys
	if !ok {
		// The parser that builds values says what is wrong, in the same
		// words as Parse; a disagreement (never seen) is still an error.
		if _, err := Parse(data, maxDepth); err != nil {
			return Doc{}, err
		}
		return Doc{}, &Error{Kind: Syntax, Offset: t.pos, Msg: "invalid JSON"}
	}
	n := len(t.nodes)
	if t.arena != nil {
		a.free = t.nodes[n:n]
	} else {
		a.free = nil
	}
	return Doc{data: data, nodes: t.nodes[:n:n], depth: maxDepth, deep: t.deepest}, nil
}

// take returns the next chunk, empty, with room for at least need nodes:
// one allocated before and freed by Reset, or a new one.
func (a *Arena) take(need int) []node {
	size := max(need, min(firstChunk<<min(a.next, 8), arenaChunk))
	switch {
	case a.next == len(a.chunks):
		a.chunks = append(a.chunks, make([]node, 0, size))
	case cap(a.chunks[a.next]) < need:
		a.chunks[a.next] = make([]node, 0, size) // the old one was too small
	}
	c := a.chunks[a.next][:0]
	a.next++
	return c
}

// tape is the state of Arena.Parse: it checks what parser checks, without
// building values or error messages.
type tape struct {
	data     []byte
	pos      int
	depth    int
	maxDepth int
	nodes    []node
	keys     []int  // key nodes of the objects being parsed, for duplicates
	deepest  int    // the deepest nesting seen
	arena    *Arena // where more nodes come from; nil once the Doc has its own
}

func (t *tape) skipSpace() { t.pos = spaceEnd(t.data, t.pos) }

func (t *tape) add(k Type, start int) int {
	if len(t.nodes) == cap(t.nodes) {
		t.grow()
	}
	t.nodes = append(t.nodes, node{kind: k, start: uint32(start)})
	return len(t.nodes) - 1
}

// grow makes room for more nodes. A Doc that filled the rest of a chunk
// moves to the arena's next chunk while it is small (node indexes are
// relative to the Doc, so they stay valid), and the chunk's rest serves
// the next Doc. A larger one leaves the arena for an array of its own,
// twice the room each time, whatever the size (append grows large slices
// by a quarter, which would copy a huge line's nodes many times).
func (t *tape) grow() {
	var room []node
	if t.arena != nil && len(t.nodes) < arenaChunk/2 {
		room = t.arena.take(2 * len(t.nodes))
	} else {
		room = make([]node, 0, 2*cap(t.nodes)+arenaChunk)
		t.arena = nil
	}
	t.nodes = append(room, t.nodes...)
}

// close ends node i at the current position.
func (t *tape) close(i int) {
	t.nodes[i].end = uint32(t.pos)
	t.nodes[i].next = uint32(len(t.nodes))
}

func (t *tape) value() bool {
	if t.pos >= len(t.data) {
		return false
	}
	switch c := t.data[t.pos]; c {
	case '{':
		return t.object()
	case '[':
		return t.array()
	case '"':
		return t.str()
	case 't':
		return t.literal("true", Bool)
	case 'f':
		return t.literal("false", Bool)
	case 'n':
		return t.literal("null", Null)
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return t.number()
		}
		return false
	}
}

func (t *tape) literal(word string, k Type) bool {
	if !bytes.HasPrefix(t.data[t.pos:], []byte(word)) {
		return false
	}
	i := t.add(k, t.pos)
	t.pos += len(word)
	t.close(i)
	return true
}

// enter counts one more level of nesting, and reports whether it is
// within the limit.
func (t *tape) enter() bool {
	t.depth++
	t.deepest = max(t.deepest, t.depth)
	return t.depth <= t.maxDepth
}

// open starts a node of container kind k at its opening bracket; empty
// reports one that closer ends at once.
func (t *tape) open(k Type, closer byte) (i int, empty, ok bool) {
	if !t.enter() {
		return 0, false, false
	}
	i = t.add(k, t.pos)
	t.pos++
	t.skipSpace()
	if t.pos < len(t.data) && t.data[t.pos] == closer {
		t.pos++
		t.depth--
		t.close(i)
		return i, true, true
	}
	return i, false, true
}

func (t *tape) object() bool {
	i, empty, ok := t.open(Object, '}')
	if !ok || empty {
		return ok
	}
	keys := len(t.keys)
	defer func() { t.keys = t.keys[:keys] }()
	var seen map[string]bool // the keys of an object with many members
	for {
		t.skipSpace()
		if t.pos >= len(t.data) || t.data[t.pos] != '"' || !t.str() {
			return false
		}
		k := len(t.nodes) - 1
		switch {
		case seen != nil:
			if !t.firstKey(seen, k) {
				return false
			}
		case len(t.keys)-keys >= 16:
			seen = make(map[string]bool, 32)
			for _, o := range t.keys[keys:] {
				t.firstKey(seen, o)
			}
			if !t.firstKey(seen, k) {
				return false
			}
		default:
			for _, o := range t.keys[keys:] {
				if t.sameKey(o, k) {
					return false
				}
			}
			t.keys = append(t.keys, k)
		}
		t.skipSpace()
		if t.pos >= len(t.data) || t.data[t.pos] != ':' {
			return false
		}
		t.pos++
		t.skipSpace()
		if !t.value() {
			return false
		}
		if more, ok := t.after(i, '}'); !more {
			return ok
		}
	}
}

func (t *tape) array() bool {
	i, empty, ok := t.open(Array, ']')
	if !ok || empty {
		return ok
	}
	for {
		t.skipSpace()
		if !t.value() {
			return false
		}
		if more, ok := t.after(i, ']'); !more {
			return ok
		}
	}
}

// after reads what follows a member or element of container i: a comma
// (more to come), or closer, which ends i (ok); anything else is not JSON.
func (t *tape) after(i int, closer byte) (more, ok bool) {
	t.skipSpace()
	switch {
	case t.pos >= len(t.data):
		return false, false
	case t.data[t.pos] == ',':
		t.pos++
		return true, true
	case t.data[t.pos] == closer:
		t.pos++
		t.depth--
		t.close(i)
		return false, true
	}
	return false, false
}

func (t *tape) number() bool {
	n := scanNumber(t.data, t.pos)
	if n.want != "" || n.digits > MaxNumberDigits || n.expBig {
		return false
	}
	k := t.add(Number, t.pos)
	t.pos = n.end
	t.close(k)
	return true
}

// key returns the decoded key of string node k.
func (t *tape) key(k int) string {
	n := t.nodes[k]
	if !n.esc {
		return string(t.data[n.start:n.end])
	}
	s, _ := unescape(t.data[n.start:n.end])
	return s
}

// sameKey reports whether string nodes a and b hold the same key.
func (t *tape) sameKey(a, b int) bool {
	na, nb := t.nodes[a], t.nodes[b]
	if !na.esc && !nb.esc {
		return bytes.Equal(t.data[na.start:na.end], t.data[nb.start:nb.end])
	}
	return t.key(a) == t.key(b)
}

// firstKey adds key node k to seen and reports whether it was not there.
func (t *tape) firstKey(seen map[string]bool, k int) bool {
	key := t.key(k)
	if seen[key] {
		return false
	}
	seen[key] = true
	return true
}

// str reads a string starting at its opening quote.
func (t *tape) str() bool {
	d := t.data
	n := t.add(String, t.pos+1)
	i := t.pos + 1
	for i < len(d) {
		i += strscan.Plain(d[i:])
		if i >= len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			t.pos = i
			t.close(n)
			t.pos++
			return true
		case c == '\\':
			t.nodes[n].esc = true
			next, ok := escapeEnd(d, i)
			if !ok {
				return false
			}
			i = next
		case c < 0x20:
			return false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size <= 1 {
				return false
			}
			i += size
		}
	}
	return false
}

// escapeEnd checks the escape sequence at d[i] == '\\' and returns the
// offset after it.
func escapeEnd(d []byte, i int) (int, bool) {
	if i+1 >= len(d) {
		return 0, false
	}
	switch d[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, true
	case 'u':
		r, ok := hex4At(d, i)
		if !ok {
			return 0, false
		}
		switch {
		case r >= 0xd800 && r < 0xdc00:
			if i+7 < len(d) && d[i+6] == '\\' && d[i+7] == 'u' {
				if r2, ok := hex4At(d, i+6); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
					return i + 12, true
				}
			}
			return 0, false
		case r >= 0xdc00 && r <= 0xdfff:
			return 0, false
		}
		return i + 6, true
	}
	return 0, false
}

// hex4At decodes the four hex digits of the \u escape at d[i] == '\\'.
func hex4At(d []byte, i int) (rune, bool) {
	if i+6 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i+2 : i+6] {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}

// unescape decodes the contents of a string that holds escapes (already
// checked).
func unescape(b []byte) (string, bool) {
	p := parser{data: append(append([]byte{'"'}, b...), '"')}
	s, err := p.str()
	return s, err == nil
}

// Depth is the deepest nesting of arrays and objects in the document: 0 for
// a scalar, 1 for a flat object or array.
func (d *Doc) Depth() int { return d.deep }

// Root is the index of the document's value, or -1 for the zero Doc.
func (d *Doc) Root() int {
	if len(d.nodes) == 0 {
		return -1
	}
	return 0
}

// Type is the JSON type of node i (Invalid for -1).
func (d *Doc) Type(i int) Type {
	if i < 0 {
		return Invalid
	}
	return d.nodes[i].kind
}

// Raw returns the bytes of node i (a string's with its quotes).
func (d *Doc) Raw(i int) []byte {
	if i < 0 {
		return nil
	}
	n := d.nodes[i]
	if n.kind == String {
		return d.data[n.start-1 : n.end+1]
	}
	return d.data[n.start:n.end]
}

// End returns the offset just after the array or object that begins at
// byte start of the input, or -1 if none does: a Doc is the wire.Ends of
// its input.
func (d *Doc) End(start int) int {
	lo, hi := 0, len(d.nodes)
	for lo < hi { // the first node that starts at or after start
		mid := int(uint(lo+hi) >> 1)
		if int(d.nodes[mid].start) < start {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(d.nodes) {
		if n := d.nodes[lo]; int(n.start) == start && (n.kind == Object || n.kind == Array) {
			return int(n.end)
		}
	}
	return -1
}

// Member returns the node of the member key of object i, or -1.
func (d *Doc) Member(i int, key string) int {
	if i < 0 || d.nodes[i].kind != Object {
		return -1
	}
	for k := i + 1; k < int(d.nodes[i].next); k = int(d.nodes[k+1].next) {
		if d.keyIs(k, key) {
			return k + 1
		}
	}
	return -1
}

// keyIs reports whether the string node k is key.
func (d *Doc) keyIs(k int, key string) bool {
	n := d.nodes[k]
	if !n.esc {
		return string(d.data[n.start:n.end]) == key
	}
	s, _ := unescape(d.data[n.start:n.end])
	return s == key
}

// Element returns the node of element j of array i, or -1.
func (d *Doc) Element(i, j int) int {
	if i < 0 || d.nodes[i].kind != Array || j < 0 {
		return -1
	}
	for k := i + 1; k < int(d.nodes[i].next); k = int(d.nodes[k].next) {
		if j == 0 {
			return k
		}
		j--
	}
	return -1
}

// Members calls f with the key and value node of each member of object i,
// in document order, until f returns false.
func (d *Doc) Members(i int, f func(key string, v int) bool) {
	if i < 0 || d.nodes[i].kind != Object {
		return
	}
	for k := i + 1; k < int(d.nodes[i].next); k = int(d.nodes[k+1].next) {
		key, _ := d.String(k)
		if !f(key, k+1) {
			return
		}
	}
}

// MemberBytes is Members with each key as bytes: a slice of the input
// for a key without escapes (not to be kept past the call, nor changed),
// so that a caller that only looks a key up allocates nothing.
func (d *Doc) MemberBytes(i int, f func(key []byte, v int) bool) {
	if i < 0 || d.nodes[i].kind != Object {
		return
	}
	for k := i + 1; k < int(d.nodes[i].next); k = int(d.nodes[k+1].next) {
		key, _ := d.StringBytes(k)
		if !f(key, k+1) {
			return
		}
	}
}

// Elements calls f with the node of each element of array i until f
// returns false.
func (d *Doc) Elements(i int, f func(v int) bool) {
	if i < 0 || d.nodes[i].kind != Array {
		return
	}
	for k := i + 1; k < int(d.nodes[i].next); k = int(d.nodes[k].next) {
		if !f(k) {
			return
		}
	}
}

// String returns the value of string node i.
func (d *Doc) String(i int) (string, bool) {
	if i < 0 || d.nodes[i].kind != String {
		return "", false
	}
	n := d.nodes[i]
	if !n.esc {
		return string(d.data[n.start:n.end]), true
	}
	return unescape(d.data[n.start:n.end])
}

// StringBytes returns the value of string node i as bytes: a slice of the
// input (not to be kept past it, nor changed) for a string without
// escapes, else a new array.
func (d *Doc) StringBytes(i int) ([]byte, bool) {
	if i < 0 || d.nodes[i].kind != String {
		return nil, false
	}
	n := d.nodes[i]
	if !n.esc {
		return d.data[n.start:n.end:n.end], true
	}
	s, ok := unescape(d.data[n.start:n.end])
	return []byte(s), ok
}

// StringIs reports whether node i is the string s, without allocating for
// a string without escapes.
func (d *Doc) StringIs(i int, s string) bool {
	if i < 0 || d.nodes[i].kind != String {
		return false
	}
	return d.keyIs(i, s)
}

// Bool returns the value of node i, if it is true or false.
func (d *Doc) Bool(i int) (v, ok bool) {
	if i < 0 || d.nodes[i].kind != Bool {
		return false, false
	}
	return d.data[d.nodes[i].start] == 't', true
}

// Find follows a JSON pointer from the root; -1 if it leads nowhere.
// Pointers without escapes are followed without allocating.
func (d *Doc) Find(ptr string) int {
	i := d.Root()
	if !jsonpointer.Walk(ptr, func(tok string) bool { i = d.Child(i, tok); return i >= 0 }) {
		return -1
	}
	return i
}

// ValueStart returns the offset in the input where the value at the JSON
// pointer ptr begins, and whether there is such a value: a Doc is the
// wire.Finder of its input.
func (d *Doc) ValueStart(ptr string) (int, bool) {
	i := d.Find(ptr)
	if i < 0 {
		return 0, false
	}
	if d.nodes[i].kind == String {
		return int(d.nodes[i].start) - 1, true // its opening quote
	}
	return int(d.nodes[i].start), true
}

// FindPath follows reference tokens from the root; -1 if they lead nowhere.
func (d *Doc) FindPath(toks []string) int {
	i := d.Root()
	for _, tok := range toks {
		if i = d.Child(i, tok); i < 0 {
			return -1
		}
	}
	return i
}

// Child returns the member or element of node i that an unescaped
// pointer token names, or -1.
func (d *Doc) Child(i int, tok string) int {
	if i < 0 {
		return -1
	}
	switch d.nodes[i].kind {
	case Object:
		return d.Member(i, tok)
	case Array:
		// An index is written in decimal without leading zeros.
		if tok == "" || len(tok) > 1 && tok[0] == '0' || tok[0] < '0' || tok[0] > '9' {
			return -1
		}
		j, err := strconv.Atoi(tok)
		if err != nil {
			return -1
		}
		return d.Element(i, j)
	}
	return -1
}

// Value builds node i as Parse would have returned it (map[string]any,
// []any, string, json.Number, bool or nil); nil for -1.
func (d *Doc) Value(i int) any {
	if i < 0 {
		return nil
	}
	switch n := d.nodes[i]; n.kind {
	case Null:
		return nil
	case Bool:
		return d.data[n.start] == 't'
	case Number:
		return json.Number(d.data[n.start:n.end])
	case String:
		s, _ := d.String(i)
		return s
	}
	v, err := Parse(d.Raw(i), d.depth)
	if err != nil {
		return nil // never: the bytes parsed once already
	}
	return v
}
