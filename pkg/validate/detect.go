package validate

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/validate/explain"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// decide picks the protocol of the file from its first batch of messages
// that holds any JSON, and starts that protocol's rules. The error is a
// schema set that does not compile.
func (r *fileRun) decide(items []*item) error {
	r.decided = true
	rules := r.e.rulesOf(r.e.opts.Protocol)
	if rules == nil {
		for _, it := range items {
			if it.m.Obj == nil {
				continue
			}
			for _, ru := range r.e.rules {
				if ru.Identify(it.m.Obj) {
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
	first := make([]*protocol.Message, 0, len(items))
	for _, it := range items {
		if it.bad == nil {
			first = append(first, &it.m)
		}
	}
	dialect := ""
	for _, d := range rules.Dialects() {
		if d == r.e.opts.Dialect {
			dialect = d
		}
	}
	h, err := rules.Start(first, protocol.Start{Dialect: dialect, Partial: r.e.opts.Partial})
	if err != nil {
		return fmt.Errorf("%s schemas: %w", rules.Name(), err)
	}
	r.rules, r.h = rules, h
	r.x = explain.New(rules.Name(), r.e.docs)
	r.detected = true
	return nil
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
		if looksBinary(items) {
			r.skipAll = true
			r.emit(Finding{Line: items[0].rec.Line, Severity: Error, Rule: RuleJSON, Message: "binary data, not a text trace: a trace is JSON Lines or SSE text (gzip is read too); is the file compressed some other way, or not a trace at all?"})
		}
		// Otherwise every line gets its own json finding, as text.
		return
	}
	r.skipAll = true
	r.emit(Finding{Line: first.rec.Line, Severity: Error, Rule: RuleUnknownProtocol, Message: diagnose(first, items)})
}

// looksBinary reports whether the records hold NUL bytes or are mostly not
// UTF-8 text.
func looksBinary(items []*item) bool {
	var n, bad int
	for _, it := range items {
		d := it.rec.Data
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

// diagnose says what a file that matches no protocol looks like, and what
// the real field names are.
func diagnose(first *item, items []*item) string {
	keys := map[string]bool{}
	var top []string
	for i, it := range items {
		if i > 50 {
			break
		}
		collectKeys(it.m.Value, keys, 0)
	}
	o := first.m.Obj
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
	return fmt.Sprintf("no protocol recognised: ARCP messages have \"arcp\" and \"type\", ACP messages \"jsonrpc\", Arcan events \"part_type\"; the first JSON value here has %s (use --protocol to force one)", describeKeys(top))
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
