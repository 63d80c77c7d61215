package protocol

// Recent is a map that keeps at most about max entries: past that, the
// entries put longest ago are forgotten. The state rules use it for what a
// trace accumulates without end (answered request ids, finished jobs and
// runs, tool call ids), so that memory stays bounded on a trace of any
// length; a rule then only looks back over the last max such entries.
//
// What it forgets it still knows it once held: Forgotten answers from a
// Bloom filter of every key dropped, which may say yes for a key never put
// (a rule then skips a check it could have made) but never no for a key
// that was, so a rule never reports as unknown an id it merely forgot.
type Recent[V any] struct {
	m     map[string]V
	order []string // keys in the order they were put; may hold stale and repeated keys
	max   int
	gone  []uint64 // Bloom filter of the forgotten keys; nil until one is
}

// NewRecent returns an empty Recent that keeps about max entries.
func NewRecent[V any](max int) *Recent[V] {
	return &Recent[V]{m: map[string]V{}, max: max}
}

// Get returns the value under k.
func (r *Recent[V]) Get(k string) (V, bool) {
	v, ok := r.m[k]
	return v, ok
}

// GetBytes is Get for a key held as bytes, without making a string of it.
func (r *Recent[V]) GetBytes(k []byte) (V, bool) {
	v, ok := r.m[string(k)]
	return v, ok
}

// Put stores v under k and makes k the most recent entry.
func (r *Recent[V]) Put(k string, v V) {
	r.order = append(r.order, k)
	r.m[k] = v
	if len(r.order) > 2*r.max {
		r.compact()
	}
}

// Delete forgets k.
func (r *Recent[V]) Delete(k string) { delete(r.m, k) }

// Len is the number of live entries.
func (r *Recent[V]) Len() int { return len(r.m) }

// compact drops stale keys from the order and forgets the oldest entries
// beyond max.
func (r *Recent[V]) compact() {
	seen := make(map[string]bool, len(r.m))
	keep := make([]string, 0, r.max)
	for i := len(r.order) - 1; i >= 0; i-- {
		k := r.order[i]
		if _, live := r.m[k]; !live || seen[k] {
			continue
		}
		seen[k] = true
		if len(keep) >= r.max {
			delete(r.m, k)
			r.forget(k)
			continue
		}
		keep = append(keep, k)
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	r.order = keep
}

// Keys returns the live keys, in no particular order.
func (r *Recent[V]) Keys() []string {
	out := make([]string, 0, len(r.m))
	for k := range r.m {
		out = append(out, k)
	}
	return out
}

// bloomBits is the size of the filter of forgotten keys: 2^20 bits (128 KiB),
// allocated when the first key is forgotten. With three probes it stays
// under 1% false "forgotten" answers up to about 100,000 forgotten keys.
const bloomBits = 1 << 20

func probes(k string) [3]uint32 {
	// FNV-1a, 64 bits, split into two 32-bit hashes (Kirsch–Mitzenmacher).
	h := uint64(14695981039346656037)
	for i := 0; i < len(k); i++ {
		h ^= uint64(k[i])
		h *= 1099511628211
	}
	a, b := uint32(h), uint32(h>>32)|1
	return [3]uint32{a % bloomBits, (a + b) % bloomBits, (a + 2*b) % bloomBits}
}

func (r *Recent[V]) forget(k string) {
	if r.gone == nil {
		r.gone = make([]uint64, bloomBits/64)
	}
	for _, p := range probes(k) {
		r.gone[p/64] |= 1 << (p % 64)
	}
}

// Forgotten reports whether k may have been put and then dropped to keep
// the size bound: false means it certainly was not.
func (r *Recent[V]) Forgotten(k string) bool {
	if r.gone == nil {
		return false
	}
	for _, p := range probes(k) {
		if r.gone[p/64]&(1<<(p%64)) == 0 {
			return false
		}
	}
	return true
}
