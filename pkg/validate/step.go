package validate

// The step stage, in order (one goroutine, batches in order): the protocol
// is detected from the first batch, each record takes its direction from
// the sidecar, and the protocol's rules step through the messages; the end
// of the sidecar is checked at the end of the trace.

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// step is the in-order stage (one goroutine, batches in order): detection,
// the direction sidecar, dispatch and the protocol state.
func (r *fileRun) step(b *batch) {
	defer func() {
		b.notes, r.notes = r.notes, nil
		b.proto, b.dialect = r.protocol(), r.dialect()
	}()
	if !r.detected && !r.skipAll {
		if err := r.decide(b.items); err != nil {
			r.skipAll = true
			b.skip, b.stepErr = true, err
			return
		}
	}
	b.stepErr = r.directions(b.items)
	if r.skipAll {
		b.skip = true
		return
	}
	if r.h != nil {
		bt, _ := r.h.(protocol.Batcher)
		for _, it := range b.items {
			switch {
			case it.bad != nil:
				r.h.Lost(&it.m)
			case bt != nil:
				stepLine(bt, it)
			default:
				r.h.Step(&it.m)
			}
		}
	}
}

// decide picks the protocol of the file from its first batch of messages
// that holds any JSON, and starts that protocol's rules. The error is a
// schema set that does not compile.
func (r *fileRun) decide(items []*item) error {
	r.decided = true
	var rules protocol.Rules
	if r.e.opts.Protocol != "" {
		rules = r.e.rulesOf(r.e.opts.Protocol)
	} else {
		for _, m := range firstMessages(items, true) {
			if m.Obj() == nil {
				continue
			}
			for _, ru := range r.e.rules {
				if ru.Identify(m.Obj()) {
					rules = ru
					break
				}
			}
			if rules != nil {
				break
			}
		}
	}
	if rules == nil {
		r.undetected(items)
		return nil
	}
	name := rules.Name()
	if d, ok := rules.(protocol.Disowner); ok && r.e.opts.Protocol == "" {
		if line, msg := d.Disown(firstMessages(items, false)); msg != "" {
			// Another protocol that looks alike (JSON-RPC, but not
			// ACP): one finding that says what it is, rather than a
			// finding per message.
			r.skipAll = true
			r.note(Finding{Line: line, Severity: Error, Rule: RuleUnknownProtocol, Message: msg})
			return nil
		}
	}
	first := firstMessages(items, true)
	dialect := ""
	for _, d := range rules.Dialects() {
		if d == r.e.opts.Dialect {
			dialect = d
		}
	}
	if dialect == "" && r.e.opts.Dialect != "" {
		// The dialect names another protocol's version: say so once,
		// and read the trace as its own protocol says.
		line := 1
		if len(items) > 0 {
			line = items[0].m.Line
		}
		r.note(Finding{Line: line, Severity: Error, Rule: RuleUnknownProtocol, Message: fmt.Sprintf("--dialect %s does not apply to this trace, which is %s (its dialects: %s); it is read as its messages say: drop --dialect, or give it only traces of the protocol it names", r.e.opts.Dialect, strings.ToUpper(name), strings.Join(rules.Dialects(), ", "))})
	}
	h, err := rules.Start(first, protocol.Start{Dialect: dialect, Partial: r.e.opts.Partial})
	if err != nil {
		return fmt.Errorf("%s schemas: %w", name, err)
	}
	r.rules, r.h = rules, h
	r.judge = r.e.judge.Trace(r.name, name)
	r.detected = true
	return nil
}

// firstMessages returns the messages of the records, for detection: a
// record whose value is an array stands for its entries. Unless parsed is
// set, the records that could not be parsed are there too (with no value).
func firstMessages(items []*item, parsed bool) []*protocol.Message {
	out := make([]*protocol.Message, 0, len(items))
	for _, it := range items {
		switch {
		case it.bad != nil:
			if !parsed {
				out = append(out, &it.m)
			}
		case it.array != nil:
			for i := range it.array.items {
				out = append(out, &it.array.items[i].m)
			}
		default:
			out = append(out, &it.m)
		}
	}
	return out
}

// undetected handles a file whose first messages match no protocol.
func (r *fileRun) undetected(items []*item) {
	var first *item
	for _, it := range items {
		if it.bad == nil {
			first = it
			break
		}
	}
	if first == nil {
		// Nothing parsed as JSON.
		if enc := utf16Text(items); enc != "" {
			r.skipAll = true
			r.note(Finding{Line: items[0].m.Line, Severity: Error, Rule: RuleJSON, Message: fmt.Sprintf("this is UTF-16 text (%s), not UTF-8: JSON Lines and SSE traces are UTF-8; convert the file first, for example with iconv -f UTF-16 -t UTF-8 (Windows PowerShell's > writes UTF-16: use Out-File -Encoding utf8)", enc)})
			return
		}
		if looksBinary(items) {
			r.skipAll = true
			r.note(Finding{Line: items[0].m.Line, Severity: Error, Rule: RuleJSON, Message: "binary data, not a text trace: a trace is JSON Lines or SSE text (gzip is read too); is the file compressed some other way, or not a trace at all?"})
		}
		// Otherwise every line gets its own json finding, as text.
		return
	}
	r.skipAll = true
	r.note(Finding{Line: first.m.Line, Severity: Error, Rule: RuleUnknownProtocol, Message: diagnose(first, items, r.e.rules, r.e.reg)})
}

// looksBinary reports whether the records hold NUL bytes or are mostly not
// UTF-8 text.
func looksBinary(items []*item) bool {
	var n, bad int
	for _, it := range items {
		d := it.m.Data
		if bytes.IndexByte(d, 0) >= 0 {
			return true
		}
		for len(d) > 0 && n < 4096 {
			r, size := utf8.DecodeRune(d)
			if r == utf8.RuneError && size <= 1 || r < 0x20 && r != '\t' {
				bad++
			}
			n++
			d = d[size:]
		}
	}
	return n > 0 && bad*10 > n
}

// diagnose says what a file that matches no protocol of rules looks like,
// and what the real field names are.
func diagnose(first *item, items []*item, rules []protocol.Rules, reg *registry.Registry) string {
	keys := map[string]bool{}
	var top []string
	for i, it := range items {
		if i > 50 {
			break
		}
		collectKeys(it.m.Value(), keys, 0)
	}
	o := first.m.Obj()
	for k := range o {
		top = append(top, protocol.Quote(k))
	}
	sort.Strings(top)
	has := func(k string) bool { return keys[k] }
	typ, _ := o["type"].(string)
	switch {
	case has("update_type") || has("session_id") && (has("update") || has("tool_call_id") || has("prompt")):
		return "this looks like an HTTP flavour of ACP with snake_case fields (update_type, session_id), not the Agent Client Protocol: ACP messages are JSON-RPC 2.0 objects with \"jsonrpc\":\"2.0\", a \"method\" and \"params\" (or an \"id\" with a \"result\"), and camelCase member names: the update kind is \"sessionUpdate\", the session \"sessionId\", a tool call \"toolCallId\""
	case o != nil && (has("method") || o["result"] != nil || o["error"] != nil) && o["id"] != nil || o != nil && o["method"] != nil:
		return "this looks like JSON-RPC without \"jsonrpc\":\"2.0\": every ACP message carries that member; add it to each request, notification and response"
	case o != nil && typ != "" && o["payload"] != nil:
		return fmt.Sprintf("this looks like an ARCP envelope (type %s with a payload) without its \"arcp\" version field: every ARCP message carries \"arcp\":\"1.1\"", protocol.Quote(typ))
	case o != nil && isPascal(typ) || has("kind") && keys["event_id"]:
		return "this looks like aiOS EventRecord JSON (PascalCase \"type\" tags such as RunStarted), not Arcan AgentEvent: Arcan events are flat objects tagged with snake_case \"part_type\" (run_started, text_delta, …)"
	case strings.Contains(typ, "-") || typ == "start" || typ == "finish":
		return fmt.Sprintf("this looks like a Vercel AI SDK UI message stream (type %s), not Arcan AgentEvent: validate the native Arcan stream, whose events are tagged with \"part_type\"", protocol.Quote(typ))
	}
	if len(top) > 12 {
		top = append(top[:12], "…")
	}
	return fmt.Sprintf("no protocol recognised: %s; the first JSON value here has %s (use --protocol to force one)", marks(rules, reg), describeKeys(top))
}

// marks says what marks the messages of each protocol of rules, in the
// order they are tried, as the registry describes them: "ACP messages have
// "jsonrpc", ARCP messages …".
func marks(rules []protocol.Rules, reg *registry.Registry) string {
	var sb strings.Builder
	for i, ru := range rules {
		p := reg.Protocol(ru.Name())
		members := p.MarksText()
		if members == "" {
			members = "their own members"
		}
		switch {
		case i == 0:
			fmt.Fprintf(&sb, "%s have %s", p.Messages, members)
		default:
			fmt.Fprintf(&sb, ", %s %s", p.Messages, members)
		}
	}
	return sb.String()
}

func describeKeys(keys []string) string {
	if len(keys) == 0 {
		return "no fields"
	}
	return "the fields " + strings.Join(keys, ", ")
}

func isPascal(s string) bool {
	if s == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) && !strings.ContainsAny(s, "._-/ ")
}

func collectKeys(v any, into map[string]bool, depth int) {
	if depth > 6 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			into[k] = true
			collectKeys(c, into, depth+1)
		}
	case []any:
		for i, c := range v {
			if i > 20 {
				break
			}
			collectKeys(c, into, depth+1)
		}
	}
}

// utf16Text reports whether the records are UTF-16 text: a UTF-16 byte
// order mark, or ASCII with a NUL beside every character. It returns
// "little-endian" or "big-endian", or "".
func utf16Text(items []*item) string {
	if len(items) == 0 {
		return ""
	}
	d := items[0].m.Data
	switch {
	case bytes.HasPrefix(d, []byte{0xff, 0xfe}):
		return "little-endian"
	case bytes.HasPrefix(d, []byte{0xfe, 0xff}):
		return "big-endian"
	}
	// Without a mark: of the first bytes, the odd (or even) ones are all
	// NUL and the others printable ASCII.
	if len(d) > 512 {
		d = d[:512]
	}
	if len(d) < 8 {
		return ""
	}
	var nulEven, nulOdd, textEven, textOdd int
	for i, b := range d {
		switch {
		case b == 0 && i%2 == 0:
			nulEven++
		case b == 0:
			nulOdd++
		case b >= 0x20 && b < 0x7f || b == '\t' || b == '\r':
			if i%2 == 0 {
				textEven++
			} else {
				textOdd++
			}
		}
	}
	half := len(d) / 2
	switch {
	case nulOdd*10 >= half*9 && textEven*10 >= half*9:
		return "little-endian"
	case nulEven*10 >= half*9 && textOdd*10 >= half*9:
		return "big-endian"
	}
	return ""
}

// directions reads one sidecar line per record, for protocols that take a
// direction sidecar.
func (r *fileRun) directions(items []*item) error {
	if r.dirs == nil || r.rules == nil {
		return nil
	}
	allowed := r.rules.Directions()
	if len(allowed) == 0 {
		return nil
	}
	for _, it := range items {
		// Entry k is line k's: skip those of the lines that hold no
		// record (blank lines).
		var d string
		for r.dirLines < it.m.Line {
			if !r.dirs.Scan() {
				err := r.dirs.Err()
				r.dirs, r.dirEnded = nil, true
				if err != nil {
					return fmt.Errorf("direction sidecar: %w", err)
				}
				// Short: the rest of the trace is read without
				// directions, and the end of the trace says so.
				r.dirShort = true
				return nil
			}
			r.dirLines++
			d = strings.TrimSpace(r.dirs.Text())
		}
		ok := false
		for _, a := range allowed {
			ok = ok || d == a
		}
		if !ok {
			r.dirs, r.dirEnded = nil, true
			return fmt.Errorf("direction sidecar: line %d holds %s; each line must be %s", r.dirLines, protocol.Quote(d), strings.Join(allowed, " or "))
		}
		it.m.Dir = d
	}
	return nil
}

// sidecarCount warns once when the direction sidecar holds another number
// of entries than the trace has lines: one of them was cut or is another
// trace's, and the directions read may be shifted.
func (r *fileRun) sidecarCount(lines int) {
	n := r.dirLines
	switch {
	case r.dirShort:
	case r.dirs == nil || lines == 0:
		return
	default:
		for n <= lines && r.dirs.Scan() {
			n++
		}
		if n == lines {
			return
		}
	}
	more := "fewer"
	if n > lines {
		more = "more"
	}
	r.emit(Finding{Line: 0, Severity: Warning, Rule: RuleSidecar, Message: fmt.Sprintf("the direction sidecar holds %s entries (%d) than the trace has lines (%d): it holds one direction per line of the trace, blank and unreadable lines included; the directions read may be shifted, and lines past its end were read without one", more, n, lines)})
}

// stepLine hands a record to rules that read batches: an array's entries
// as messages of their own, which take the line's direction.
func stepLine(bt protocol.Batcher, it *item) {
	es := it.array
	if es == nil {
		bt.StepLine(&it.m, nil, 0)
		return
	}
	msgs := make([]*protocol.Message, len(es.items))
	for i := range es.items {
		e := &es.items[i]
		e.m.Dir = it.m.Dir
		msgs[i] = &e.m
	}
	es.batch = bt.StepLine(&it.m, msgs, es.total)
}

func (r *fileRun) protocol() string {
	if r.rules == nil {
		return ""
	}
	return r.rules.Name()
}

func (r *fileRun) dialect() string {
	if r.h == nil {
		return ""
	}
	return r.h.Dialect()
}

// note keeps a finding of the in-order stage, to be reported with the
// batch it was found in.
func (r *fileRun) note(f Finding) { r.notes = append(r.notes, f) }
