package validate

// recent is a map that keeps at most about max entries: past that, the
// entries put longest ago are forgotten. The state rules use it for what a
// trace accumulates without end (answered request ids, finished jobs and
// runs, tool call ids), so that memory stays bounded on a trace of any
// length; a rule then only looks back over the last max such entries.
type recent[V any] struct {
	m     map[string]V
	order []string // keys in the order they were put; may hold stale and repeated keys
	max   int
}

func newRecent[V any](max int) *recent[V] {
	return &recent[V]{m: map[string]V{}, max: max}
}

func (r *recent[V]) get(k string) (V, bool) {
	v, ok := r.m[k]
	return v, ok
}

// put stores v under k and makes k the most recent entry.
func (r *recent[V]) put(k string, v V) {
	r.order = append(r.order, k)
	r.m[k] = v
	if len(r.order) > 2*r.max {
		r.compact()
	}
}

func (r *recent[V]) delete(k string) { delete(r.m, k) }

func (r *recent[V]) len() int { return len(r.m) }

// compact drops stale keys from the order and forgets the oldest entries
// beyond max.
func (r *recent[V]) compact() {
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
			continue
		}
		keep = append(keep, k)
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	r.order = keep
}

// keys returns the live keys, in no particular order.
func (r *recent[V]) keys() []string {
	out := make([]string, 0, len(r.m))
	for k := range r.m {
		out = append(out, k)
	}
	return out
}
