package protocol

// Batcher is a Handler whose protocol lets one line carry several messages
// as a JSON array (a JSON-RPC 2.0 batch). The engine splits a line whose
// value is an array into its entries, each a Message of its own on the same
// line, and steps every record through StepLine instead of Step, so that
// the rules see a batch as a whole, and see the answers to it whether they
// come back as an array or on lines of their own.
type Batcher interface {
	// StepLine steps one record, in trace order, as Step does.
	//
	// For a record whose value is an array, entries are Messages of its
	// elements, in order (its first MaxEntries when total, the array's
	// length, is larger): each has its own Doc, and its pointers and
	// findings are relative to the entry. StepLine reports whether it
	// read the line as a batch: the engine then runs each entry's Checks
	// and reports each entry's findings under the entry's index
	// ("/0/params/…") on the line, after the line's own. When it reports
	// false the line is one message like any other, and the entries are
	// dropped unread.
	//
	// For any other record entries is nil and total 0, and the result is
	// not read.
	StepLine(line *Message, entries []*Message, total int) (batch bool)
}

// MaxEntries is how many elements of an array line the engine makes
// messages of, at most: a Batcher is told the array's length, and a batch
// longer than that is checked only in part, so that what one line costs
// stays bounded.
const MaxEntries = 1 << 10
