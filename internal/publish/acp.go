package publish

import (
	"fmt"
	"strings"
)

// acpEntries reads ACP's method table (each method's params and result,
// the envelope and a dialect's records) into the bundle's messages; the
// envelope is the file the root checks every line with.
func acpEntries(b *Bundle, table *Object, add func(file, name string) error, src func(string) string) (string, error) {
	kinds := map[string][]string{}
	for _, m := range table.Arr("methods") {
		mo, _ := m.(*Object)
		kinds[mo.Str("method")] = append(kinds[mo.Str("method")], mo.Str("kind"))
	}
	for i, m := range table.Arr("methods") {
		mo, _ := m.(*Object)
		method := mo.Str("method")
		if method == "" {
			return "", fmt.Errorf("publish: %s/dispatch.json: methods[%d] has no method", b.Dir(), i)
		}
		msg := Message{Tag: method, Kind: mo.Str("kind"), Handler: mo.Str("handler")}
		if k := kinds[method]; len(k) > 1 && (len(k) > 2 || k[0] == k[1]) {
			return "", fmt.Errorf("publish: %s/dispatch.json: method %s is listed %d times; only a request and a notification may share a name", b.Dir(), method, len(k))
		}
		msg.Shared = len(kinds[method]) > 1
		for _, role := range []string{"params", "result"} {
			file := mo.Str(role)
			if file == "" {
				continue
			}
			name := MethodDef(method, role)
			if msg.Shared && msg.Kind == "notification" {
				name = pascal(strings.TrimPrefix(method, "$/")) + "NotificationParams"
			}
			if err := add(file, name); err != nil {
				return "", err
			}
			msg.Parts = append(msg.Parts, Part{Role: role, Def: name, Source: src(file)})
		}
		b.Messages = append(b.Messages, msg)
	}
	env := table.Str("envelope")
	if env == "" {
		return "", fmt.Errorf("publish: %s/dispatch.json: no envelope", b.Dir())
	}
	if err := add(env, ""); err != nil {
		return "", err
	}
	// Records: messages of the protocol that are not JSON-RPC lines (a
	// dialect's event stream), each checked with its own definition.
	for i, m := range table.Arr("records") {
		mo, _ := m.(*Object)
		rec, file := mo.Str("record"), mo.Str("schema")
		if rec == "" || file == "" {
			return "", fmt.Errorf("publish: %s/dispatch.json: records[%d] needs record and schema", b.Dir(), i)
		}
		name := pascal(rec) + "Record"
		if err := add(file, name); err != nil {
			return "", err
		}
		b.Messages = append(b.Messages, Message{Tag: rec, Kind: "record", Handler: mo.Str("handler"), Parts: []Part{{Def: name, Source: src(file)}}})
	}
	return src(env), nil
}

// acpDispatch makes the root of an ACP bundle: the envelope, and per
// method an if/then on method that checks its params and its id.
func acpDispatch(b *Bundle, defs *Object, envelope string) error {
	doc := b.Doc
	label := strings.ToUpper(b.Protocol) + " " + b.Name
	doc.Set("description", fmt.Sprintf("One %s message (one JSON-RPC 2.0 line), generated from the agentproto schema files of %s. "+
		"The root checks the envelope (#/$defs/%s) and, for a request or notification of a method in the method table, the method's params, "+
		"that a request carries an id and that a notification does not. Extension methods (names starting with `_`) and unknown methods get the envelope check only. "+
		"A response cannot be dispatched by itself: the schema of its result depends on the method of the request it answers (the request with the same id, sent the other way). "+
		"Check `result` separately with #/$defs/<Method>Result; an `error` is fully checked by the root. "+
		"Definition names of methods: the method name in PascalCase (a leading `$/` dropped, each word after `/`, `_` or `.` capitalised) followed by Params or Result, "+
		"for example session/prompt gives SessionPromptParams and SessionPromptResult, $/cancel_request gives CancelRequestParams; "+
		"where a name is both a request and a notification, the notification's params are <Method>NotificationParams and the id decides which applies."+
		b.recordsNote(), label, b.Dir(), envelope))
	doc.Set("type", "object")
	all := []any{obj("$ref", refTo(envelope))}
	for _, m := range b.Messages {
		if m.Kind == "record" {
			continue
		}
		var params string
		for _, p := range m.Parts {
			if p.Role == "params" {
				params = p.Def
			}
		}
		if params == "" {
			continue
		}
		then := newObject()
		cond := tagIf("method", obj("const", m.Tag))
		if m.Shared {
			// A request and a notification share the name: the id
			// tells them apart.
			if m.Kind == "request" {
				cond.Set("required", []any{"method", "id"})
				cond.Obj("properties").Set("id", obj("description", "Present: a request."))
			} else {
				cond.Set("not", obj("required", []any{"id"}))
			}
		}
		props := obj("params", obj("description", fmt.Sprintf("The params of %s.", m.Tag), "$ref", refTo(params)))
		switch m.Kind {
		case "request":
			props.Set("id", obj("description", fmt.Sprintf("%s is a request: it carries an id, which the response repeats.", m.Tag)))
			then.Set("properties", props)
			then.Set("required", []any{"id", "params"})
		case "notification":
			props.Set("id", obj("description", fmt.Sprintf("%s is a notification: it never carries an id.", m.Tag), "not", newObject()))
			then.Set("properties", props)
			then.Set("required", []any{"params"})
		default:
			return fmt.Errorf("publish: %s/dispatch.json: method %s has kind %q, want request or notification", b.Dir(), m.Tag, m.Kind)
		}
		all = append(all, obj("if", cond, "then", then))
	}
	doc.Set("allOf", all)
	return nil
}

// acpDocTable writes ACP's method table on the reference page.
func acpDocTable(r *renderer) {
	b := r.b
	r.out.WriteString("| method | kind | handled by | params | result |\n|---|---|---|---|---|\n")
	for _, m := range b.Messages {
		cells := map[string]string{"params": "–", "result": "–"}
		for _, pt := range m.Parts {
			cells[pt.Role] = fmt.Sprintf("`#/$defs/%s`", pt.Def)
		}
		fmt.Fprintf(&r.out, "| %s | %s | %s | %s | %s |\n", r.link(msgKey(b, m), "`"+m.Tag+"`"), m.Kind, m.Handler, cells["params"], cells["result"])
	}
}

// acpDocMessage writes the section of an ACP method (or record): who sends
// it, and its params and result.
func acpDocMessage(r *renderer, m Message) {
	b := r.b
	r.heading(4, msgKey(b, m), "`"+m.Tag+"`"+r.suffix())
	who := map[string]string{"agent": "the client sends it and the agent handles it", "client": "the agent sends it and the client handles it", "both": "either side sends it"}[m.Handler]
	if who != "" {
		r.p("A %s: %s.", m.Kind, who)
	} else {
		r.p("A %s.", m.Kind)
	}
	for _, pt := range m.Parts {
		role := "Params"
		if pt.Role == "result" {
			role = "Result"
		}
		r.heading(5, defKey(b, pt.Def), fmt.Sprintf("%s of `%s`%s", role, m.Tag, r.suffix()))
		r.definition(pt.Def, pt.Source)
	}
}
