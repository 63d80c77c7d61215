package protocol

// Once remembers keys, for findings given once per trace: First reports
// whether a key is met for the first time. The zero value is ready to use.
type Once struct{ seen map[string]bool }

// First reports whether k is met for the first time, and remembers it.
func (o *Once) First(k string) bool {
	if o.seen[k] {
		return false
	}
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	o.seen[k] = true
	return true
}
