package validate

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// identify names the protocol of one message from the fields that mark it:
// ARCP envelopes have "arcp" and "type", ACP messages "jsonrpc" (or the keys
// of a dialect's non-JSON-RPC record, such as VT Code's "update_type"), Arcan
// events "part_type" (bare, or under "event" in a session-store record).
func (e *Engine) identify(o map[string]any) string {
	if _, ok := o["jsonrpc"]; ok {
		return "acp"
	}
	if e.acpRecord(o) != nil {
		return "acp"
	}
	if _, ok := o["arcp"]; ok {
		if _, ok := o["type"]; ok {
			return "arcp"
		}
	}
	if _, ok := o["part_type"]; ok {
		return "arcan"
	}
	if ev, ok := o["event"].(map[string]any); ok {
		if _, ok := ev["part_type"]; ok {
			return "arcan"
		}
	}
	return ""
}

// decide picks the protocol of the file from its first batch of messages
// that holds any JSON. The error is a schema set that does not compile.
func (r *fileRun) decide(msgs []*message) error {
	r.decided = true
	proto := r.e.opts.Protocol
	if proto == "" {
		for _, m := range msgs {
			if m.obj != nil {
				if p := r.e.identify(m.obj); p != "" {
					proto = p
					break
				}
			}
		}
	}
	if proto == "" {
		r.undetected(msgs)
		return nil
	}
	line := 1
	if len(msgs) > 0 {
		line = msgs[0].rec.Line
	}
	if !r.e.Supported(proto) {
		r.skipAll = true
		r.emit(Finding{Line: line, Severity: Error, Protocol: proto, Rule: RuleUnknownProtocol, Message: fmt.Sprintf("this file is %s, but this build has no %s schemas", strings.ToUpper(proto), strings.ToUpper(proto))})
		return nil
	}
	var err error
	switch proto {
	case "acp":
		var tb *acpTables
		if tb, err = r.e.acpFor(r.e.acpDialect(msgs)); err == nil {
			r.h = newACP(tb)
		}
	case "arcp":
		var tb *arcpTables
		if tb, err = r.e.arcpFor(); err == nil {
			r.h = newARCP(tb, r.e.opts.Dialect, msgs)
		}
	case "arcan":
		var t *table
		if t, err = r.e.arcanFor(); err == nil {
			r.h = newArcan(t)
		}
	}
	if err != nil {
		return fmt.Errorf("%s schemas: %w", proto, err)
	}
	ts, docs := r.e.schemaDocs()
	r.protocol = proto
	r.x = newExplainer(proto, ts, docs)
	r.detected = true
	return nil
}

// acpRecord returns the dialect table whose non-JSON-RPC record o is, if
// any.
func (e *Engine) acpRecord(o map[string]any) *table {
	if _, ok := o["jsonrpc"]; ok {
		return nil
	}
	for _, t := range e.tables {
		if !family(t.Protocol, "acp") {
			continue
		}
		for _, rec := range t.Records {
			if rec.matches(o) {
				return t
			}
		}
	}
	return nil
}

// acpDialect picks the ACP schema set for a file: the one --dialect names;
// else a dialect whose records appear in the first messages, or whose
// snake_case session_id the JSON-RPC messages carry instead of ACP's
// sessionId; else ACP's stable version.
func (e *Engine) acpDialect(msgs []*message) string {
	if e.opts.Dialect != "" {
		return e.opts.Dialect
	}
	var dialects []*table
	for _, t := range e.tables {
		if t.Protocol != "acp" && family(t.Protocol, "acp") {
			dialects = append(dialects, t)
		}
	}
	if len(dialects) == 0 {
		return ""
	}
	for _, m := range msgs {
		if m.obj == nil {
			continue
		}
		if t := e.acpRecord(m.obj); t != nil {
			return t.Version
		}
		for _, k := range []string{"params", "result"} {
			if p, ok := m.obj[k].(map[string]any); ok {
				_, snake := p["session_id"]
				_, camel := p["sessionId"]
				if snake && !camel {
					sort.Slice(dialects, func(i, j int) bool { return dialects[i].dir < dialects[j].dir })
					return dialects[0].Version
				}
			}
		}
	}
	return ""
}

// undetected handles a file whose first messages match no protocol.
func (r *fileRun) undetected(msgs []*message) {
	var first *message
	for _, m := range msgs {
		if m.bad == nil {
			first = m
			break
		}
	}
	if first == nil {
		// Nothing parsed as JSON.
		if looksBinary(msgs) {
			r.skipAll = true
			r.emit(Finding{Line: msgs[0].rec.Line, Severity: Error, Rule: RuleJSON, Message: "binary data, not a text trace: a trace is JSON Lines or SSE text (gzip is read too); is the file compressed some other way, or not a trace at all?"})
		}
		// Otherwise every line gets its own json finding, as text.
		return
	}
	r.skipAll = true
	r.emit(Finding{Line: first.rec.Line, Severity: Error, Rule: RuleUnknownProtocol, Message: diagnose(first, msgs)})
}

// looksBinary reports whether the records hold NUL bytes or are mostly not
// UTF-8 text.
func looksBinary(msgs []*message) bool {
	var n, bad int
	for _, m := range msgs {
		d := m.rec.Data
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
func diagnose(first *message, msgs []*message) string {
	keys := map[string]bool{}
	var top []string
	for i, m := range msgs {
		if i > 50 {
			break
		}
		collectKeys(m.value, keys, 0)
	}
	if o, ok := first.value.(map[string]any); ok {
		for k := range o {
			top = append(top, k)
		}
		sort.Strings(top)
	}
	has := func(k string) bool { return keys[k] }
	o, _ := first.value.(map[string]any)
	typ, _ := o["type"].(string)
	switch {
	case has("update_type") || has("session_id") && (has("update") || has("tool_call_id") || has("prompt")):
		return "this looks like an HTTP flavour of ACP with snake_case fields (update_type, session_id), not the Agent Client Protocol: ACP messages are JSON-RPC 2.0 objects with \"jsonrpc\":\"2.0\" and camelCase names, for example {\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"…\",\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{…}}}}; the update kind is \"sessionUpdate\", the session \"sessionId\", a tool call \"toolCallId\""
	case o != nil && (has("method") || o["result"] != nil || o["error"] != nil) && o["id"] != nil || o != nil && o["method"] != nil:
		return "this looks like JSON-RPC without \"jsonrpc\":\"2.0\": every ACP message carries that member; add it to each request, notification and response"
	case o != nil && typ != "" && o["payload"] != nil:
		return fmt.Sprintf("this looks like an ARCP envelope (type %q with a payload) without its \"arcp\" version field: every ARCP message carries \"arcp\":\"1.1\"", typ)
	case o != nil && isPascal(typ) || has("kind") && keys["event_id"]:
		return "this looks like aiOS EventRecord JSON (PascalCase \"type\" tags such as RunStarted), not Arcan AgentEvent: Arcan events are flat objects tagged with snake_case \"part_type\" (run_started, text_delta, …)"
	case strings.Contains(typ, "-") || typ == "start" || typ == "finish":
		return fmt.Sprintf("this looks like a Vercel AI SDK UI message stream (type %q), not Arcan AgentEvent: validate the native Arcan stream, whose events are tagged with \"part_type\"", typ)
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
