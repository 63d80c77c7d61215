package acp

// JSON-RPC batches: a line that holds an array of messages. ACP v2's
// transport follows JSON-RPC 2.0's batch rules; ACP v1 has no batches. The
// entries of a batch are stepped as messages of their own (schemas,
// dispatch, pairing and the other state rules); this file checks what the
// batch as a whole must be, and how it is answered.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// RuleBatch names the findings about a JSON-RPC batch as a whole.
const RuleBatch = "batch"

// The catalogue's rows of batches.
const (
	reqBatchNonEmpty        = "acp.jsonrpc.batch-non-empty"
	reqBatchEmptySingle     = "acp.jsonrpc.batch-empty-single-answer"
	reqBatchResponseArray   = "acp.jsonrpc.batch-response-array"
	reqBatchAnswerEach      = "acp.jsonrpc.batch-answer-each"
	reqBatchInvalidEntry    = "acp.jsonrpc.batch-invalid-entry-answer"
	reqBatchNoNotifResponse = "acp.jsonrpc.batch-no-notification-response"
	reqBatchNoEmptyResponse = "acp.jsonrpc.batch-no-empty-response"
	reqBatchNoLifecycle     = "acp.jsonrpc.batch-no-lifecycle"
)

// codeInvalidRequest is JSON-RPC's "Invalid Request" error code: the
// answer to an empty batch and to each entry of a batch that is no
// request.
const codeInvalidRequest = -32600

// Bounds of what batches leave to check: past them the oldest are
// forgotten, and a forgotten batch's answers are not judged.
const (
	maxBatchRequests = 1 << 12 // requests of batches awaiting their answer
	maxWaiting       = 64      // batches awaiting an answer, per direction
)

// batching is a trace's state with what its batches leave to check. It is
// the Handler of an ACP trace: every line is stepped through StepLine.
type batching struct {
	*state
	// byRequest maps the key of each unanswered request sent in a batch
	// (the key the state keeps it under) to its batch.
	byRequest *protocol.Recent[*sentBatch]
	// waiting are the batches each direction sent that await an answer,
	// oldest first.
	waiting map[string][]*sentBatch
	// last is the latest batch each direction sent.
	last map[string]*sentBatch
	// emptyOwed counts, by the direction they travelled, the empty
	// batches whose receiver owes its single -32600 error; owed is their
	// sum.
	emptyOwed map[string]int
	owed      int
	// has caches whether the version read has batches.
	has   bool
	hasOf *registry.Version
}

// sentBatch is one batch and what its answer must hold.
type sentBatch struct {
	line int
	dir  string // the direction it travelled, "" when not known
	// keys are the keys of its requests, with their ids as the trace
	// spells them, for the answer's findings.
	keys, ids []string
	open      int // requests not answered yet
	invalid   int // entries that are no request: each is owed an error with id null
	notifOnly bool
	emptied   bool // an empty array answered it (notification only)
	warned    bool // an answer on a line of its own was reported
	done      bool // its answer came
}

func newBatching(s *state) *batching {
	return &batching{state: s, byRequest: protocol.NewRecent[*sentBatch](maxBatchRequests),
		waiting: map[string][]*sentBatch{}, last: map[string]*sentBatch{}, emptyOwed: map[string]int{}}
}

// StepLine steps one line: a message, or, in a version with batches, a
// batch of them.
func (b *batching) StepLine(m *protocol.Message, entries []*protocol.Message, total int) bool {
	if m.Doc.Type(m.Doc.Root()) != jsonscan.Array {
		b.Step(m)
		b.single(m)
		return false
	}
	m.Label = "batch"
	m.From = sideOf(m.Dir)
	if !b.batches() {
		b.noBatches(m, total)
		return false
	}
	b.exercise(reqBatchNonEmpty)
	if total == 0 {
		b.empty(m)
		return true
	}
	sb := &sentBatch{line: m.Line, dir: m.Dir}
	var requests, notifications, responses int
	var answered []*sentBatch // the batches the array's responses answer
	nulls, invalidAnswers := 0, 0
	for _, e := range entries {
		if !e.IsObject() {
			b.notAMessage(e)
			sb.invalid++
			continue
		}
		b.Step(e)
		if sb.dir == "" && e.From != "" {
			sb.dir = sentIn(e.From)
		}
		d := &e.Doc
		method, id := d.Member(d.Root(), "method"), d.Member(d.Root(), "id")
		switch {
		case e.Label == "invalid" || method >= 0 && id >= 0 && !readableID(d, id):
			// Its receiver cannot read it as a request: it is answered
			// with an error with id null.
			sb.invalid++
		case method >= 0 && id >= 0:
			requests++
			if k, ok := appendIDKey(nil, sentIn(e.From), d, id); ok {
				sb.keys = append(sb.keys, string(k))
				sb.ids = append(sb.ids, protocol.Display(d.Value(id)))
			}
			b.lifecycle(e)
		case method >= 0:
			notifications++
			b.lifecycle(e)
		default:
			responses++
			if d.Type(id) == jsonscan.Null {
				nulls++
				if code, ok := protocol.IntValue(e.At("/error/code")); ok && code == codeInvalidRequest {
					invalidAnswers++
				}
			}
			if t := b.answers(e); t != nil && !slices.Contains(answered, t) {
				answered = append(answered, t)
			}
		}
	}
	if m.From == "" {
		m.From = sideOf(sb.dir)
	}
	if total > len(entries) {
		// The rest is not read: answers to its requests are not
		// reported as unknown.
		b.lossy = true
		m.Add(finding.Warning, finding.RuleStateWindow, "", "a batch of %d entries: the first %d are checked one by one, the rest are not (answers to their requests are not reported as unknown)", total, len(entries))
	}
	if responses > 0 {
		b.answeredBy(m, answered, responses == len(entries) && nulls == responses, invalidAnswers)
	}
	if requests == 0 && sb.invalid == 0 && responses == 0 {
		sb.notifOnly = true
		b.exercise(reqBatchNoEmptyResponse)
	}
	if notifications > 0 && requests+sb.invalid > 0 {
		b.exercise(reqBatchNoNotifResponse)
	}
	b.last[sb.dir] = sb
	if requests+sb.invalid > 0 {
		b.wait(sb)
	}
	return true
}

// batches reports whether the version the trace is read as has JSON-RPC
// batches: its catalogue has the rows that say what a batch must be.
func (b *batching) batches() bool {
	if b.hasOf != b.t.v {
		b.hasOf, b.has = b.t.v, slices.Contains(b.reg.RequirementIDs(b.t.v), reqBatchNonEmpty)
	}
	return b.has
}

// noBatches reports a batch in a version that has none. Its receiver cannot
// read it as a message, and answers it as an invalid request, with id null.
func (b *batching) noBatches(m *protocol.Message, total int) {
	b.unreadable++
	var have []string
	for _, v := range b.reg.Versions("acp") {
		if v != b.t.v && !v.Dialect && v.Extends == "" && slices.Contains(b.reg.RequirementIDs(v), reqBatchNonEmpty) {
			have = append(have, v.Title)
		}
	}
	also := ""
	if len(have) > 0 {
		also = "; batches are part of " + strings.Join(have, " and ")
	}
	what := "an empty array"
	if total > 0 {
		what = "an array of " + countOf(total, "entry", "entries")
	}
	m.Add(finding.Error, finding.RuleSchema, "", "%s has no JSON-RPC batches: each message is a JSON object on a line of its own, and this line is %s%s", b.t.v.Title, what, also)
}

// empty checks an empty array: no batch at all, or an answer where none is
// due.
func (b *batching) empty(m *protocol.Message) {
	b.unreadable++ // its receiver answers it with one error with id null
	if nb := b.notificationsAnswered(m.Dir); nb != nil {
		nb.emptied = true
		if m.From == "" {
			m.From = sideOf(opposite(nb.dir))
		}
		m.Breach(reqBatchNoEmptyResponse, finding.Error, RuleBatch, "", "an empty array answering the batch of notifications on line %d: a batch that holds no request gets no answer at all, not an empty array", nb.line)
		return
	}
	b.exercise(reqBatchEmptySingle)
	b.emptyOwed[m.Dir]++
	b.owed++
	m.Breach(reqBatchNonEmpty, finding.Error, RuleBatch, "", "an empty batch: a batch holds at least one request or notification (its receiver answers this one with a single error %d, Invalid Request, with id null)", codeInvalidRequest)
}

// notificationsAnswered returns the notification-only batch that an empty
// array sent in direction dir would answer: the latest batch sent the
// other way (either way when dir is not known), if it holds only
// notifications and no empty array answered it yet.
func (b *batching) notificationsAnswered(dir string) *sentBatch {
	var nb *sentBatch
	for _, d := range [...]string{c2a, a2c, ""} {
		if dir != "" && d != opposite(dir) {
			continue
		}
		if l := b.last[d]; l != nil && (nb == nil || l.line > nb.line) {
			nb = l
		}
	}
	if nb == nil || !nb.notifOnly || nb.emptied {
		return nil
	}
	return nb
}

// notAMessage reports an entry of a batch that is not a JSON object. Its
// receiver answers it with an error with id null.
func (b *batching) notAMessage(e *protocol.Message) {
	b.unreadable++
	e.Label = "invalid"
	e.From = sideOf(e.Dir)
	nested := ""
	if e.Doc.Type(e.Doc.Root()) == jsonscan.Array {
		nested = " (batches do not nest)"
	}
	e.Add(finding.Error, finding.RuleSchema, "", "an entry of a batch is a JSON-RPC request or notification object (or, in an array of answers, a response), got %s%s", protocol.Describe(e.Value()), nested)
}

// lifecycle warns of an entry whose method changes which later messages
// are valid: such a message is sent alone.
func (b *batching) lifecycle(e *protocol.Message) {
	b.exercise(reqBatchNoLifecycle)
	name, _ := e.String("/method")
	if !b.lifecycleMethod(name) {
		return
	}
	e.Breach(reqBatchNoLifecycle, finding.Warning, RuleBatch, "/method", "%s inside a batch: it changes which messages are valid after it, so it is sent on a line of its own, and what depends on it only once it is answered", protocol.Quote(name))
}

// lifecycleMethod reports whether a table of the version, of its
// extensions or of the version it extends marks the method Lifecycle.
func (b *batching) lifecycleMethod(name string) bool {
	for _, e := range b.lookupAll(name) {
		if e.Effects.Lifecycle {
			return true
		}
	}
	if b.t.v.Extends == "" || b.tablesOf == nil {
		return false
	}
	base := b.reg.Lookup("acp", b.t.v.Extends)
	if base == nil {
		return false
	}
	t, err := b.tablesOf(base)
	if err != nil {
		return false
	}
	for _, k := range [...]string{registry.KindRequest, registry.KindNotification} {
		if e := t.methods[methodKey(name, k)]; e != nil && e.Effects.Lifecycle {
			return true
		}
	}
	return false
}

// wait notes a batch whose receiver owes it an answer.
func (b *batching) wait(sb *sentBatch) {
	b.exercise(reqBatchResponseArray)
	if sb.invalid > 0 {
		b.exercise(reqBatchInvalidEntry)
	}
	for _, k := range sb.keys {
		b.byRequest.Put(k, sb)
	}
	sb.open = len(sb.keys)
	w := append(b.waiting[sb.dir], sb)
	if len(w) > maxWaiting {
		w[0].done = true
		w = slices.Delete(w, 0, 1)
	}
	b.waiting[sb.dir] = w
}

// answers returns the waiting batch whose request the response m answers,
// and counts the request answered.
func (b *batching) answers(m *protocol.Message) *sentBatch {
	if m.Answers == 0 {
		return nil
	}
	id := m.Doc.Member(m.Doc.Root(), "id")
	k, ok := appendIDKey(nil, opposite(sentIn(m.From)), &m.Doc, id)
	if !ok {
		return nil
	}
	sb, ok := b.byRequest.GetBytes(k)
	if !ok || sb.line != m.Answers {
		return nil
	}
	b.byRequest.Delete(string(k))
	sb.open--
	return sb
}

// single checks a message on a line of its own against the batches that
// await their answers: a request of a batch is answered in the batch's
// array, and an empty batch with one error, not an array.
func (b *batching) single(m *protocol.Message) {
	if b.byRequest.Len() == 0 && b.owed == 0 {
		return // most lines: no batch awaits anything
	}
	d := &m.Doc
	if d.Type(d.Member(d.Root(), "id")) == jsonscan.Null && d.Member(d.Root(), "error") >= 0 {
		// An error with id null: it may be the one an empty batch is
		// owed.
		for _, dir := range [...]string{opposite(m.Dir), c2a, a2c, ""} {
			if (m.Dir == "" || dir == opposite(m.Dir)) && b.emptyOwed[dir] > 0 {
				b.emptyOwed[dir]--
				b.owed--
				return
			}
		}
		return
	}
	sb := b.answers(m)
	if sb == nil {
		return
	}
	if !sb.warned {
		sb.warned = true
		id := m.Doc.Value(m.Doc.Member(m.Doc.Root(), "id"))
		m.Breach(reqBatchResponseArray, finding.Warning, RuleBatch, "/id", "the answer to request %s of the batch on line %d comes on a line of its own: the answers to a batch's requests go back together, as one array, once every request of the batch is processed", protocol.Display(id), sb.line)
	}
	if sb.open == 0 && sb.invalid == 0 {
		b.close(sb)
	}
}

// answeredBy checks an array of responses against the batches its
// responses answer: it holds an answer to each of their requests, and
// an error with id null for each of their entries that is no request.
// nullsOnly is set when every entry is an error with id null (which no
// id ties to a batch); invalidAnswers counts its errors -32600 with id
// null.
func (b *batching) answeredBy(m *protocol.Message, answered []*sentBatch, nullsOnly bool, invalidAnswers int) {
	from := sentIn(m.From)
	if from == "" {
		from = m.Dir
	}
	if len(answered) == 0 && nullsOnly {
		// Errors with id null only: the answer to a batch none of whose
		// entries was a request, else to an empty batch.
		if sb := b.oldestInvalid(opposite(from)); sb != nil {
			answered = append(answered, sb)
		} else if to := b.owesEmpty(from); to != "missing" {
			b.emptyOwed[to]--
			b.owed--
			m.Breach(reqBatchEmptySingle, finding.Error, RuleBatch, "", "an array answering an empty batch: an empty batch is answered with a single error %d (Invalid Request) with id null, not an array", codeInvalidRequest)
			return
		}
	}
	for _, sb := range answered {
		b.exercise(reqBatchAnswerEach)
		if sb.open > 0 {
			var missing []string
			for i, k := range sb.keys {
				if t, ok := b.byRequest.Get(k); ok && t == sb {
					missing = append(missing, sb.ids[i])
				}
			}
			if len(missing) > 0 {
				m.Breach(reqBatchAnswerEach, finding.Warning, RuleBatch, "", "the array answering the batch on line %d lacks the answer to %s: the array holds one response for each request of the batch", sb.line, idList(missing))
			}
		}
		if sb.invalid > invalidAnswers {
			m.Breach(reqBatchInvalidEntry, finding.Warning, RuleBatch, "", "the batch on line %d holds %s, and this array holds %s with id null: each such entry gets an error %d (Invalid Request) with id null of its own in the array, and the rest of the batch is answered as usual", sb.line, countOf(sb.invalid, "entry that is no request", "entries that are no request"), countOf(invalidAnswers, "error -32600", "errors -32600"), codeInvalidRequest)
		}
		invalidAnswers = max(0, invalidAnswers-sb.invalid)
		b.close(sb)
	}
}

// oldestInvalid returns the oldest batch sent in direction dir (either
// way when dir is not known) that awaits the answers to entries that are
// no request, and has no request whose answer would tie it to an array.
func (b *batching) oldestInvalid(dir string) *sentBatch {
	var found *sentBatch
	for _, d := range [...]string{c2a, a2c, ""} {
		if dir != "" && d != dir {
			continue
		}
		for _, sb := range b.waiting[d] {
			if !sb.done && sb.invalid > 0 && len(sb.keys) == 0 && (found == nil || sb.line < found.line) {
				found = sb
				break
			}
		}
	}
	return found
}

// owesEmpty returns the direction of an empty batch whose receiver, the
// side that sends in direction from, owes it an answer; "missing" when
// there is none.
func (b *batching) owesEmpty(from string) string {
	for _, d := range [...]string{opposite(from), c2a, a2c, ""} {
		if (from == "" || d == opposite(from)) && b.emptyOwed[d] > 0 {
			return d
		}
	}
	return "missing"
}

// close forgets a batch whose answer came.
func (b *batching) close(sb *sentBatch) {
	sb.done = true
	for _, k := range sb.keys {
		if t, ok := b.byRequest.Get(k); ok && t == sb {
			b.byRequest.Delete(k)
		}
	}
	b.waiting[sb.dir] = slices.DeleteFunc(b.waiting[sb.dir], func(x *sentBatch) bool { return x == sb })
}

// idList names a few request ids.
func idList(ids []string) string {
	if len(ids) > 5 {
		return fmt.Sprintf("requests %s and %d more", strings.Join(ids[:5], ", "), len(ids)-5)
	}
	if len(ids) == 1 {
		return "request " + ids[0]
	}
	return "requests " + strings.Join(ids, ", ")
}

// sentIn is the direction of a message the side sent ("" when the side is
// not known).
func sentIn(side string) string {
	switch side {
	case sideClient:
		return c2a
	case sideAgent:
		return a2c
	}
	return ""
}

// countOf says n things, in the singular or the plural.
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
