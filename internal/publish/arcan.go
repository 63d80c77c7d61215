package publish

import "fmt"

// arcanEntries reads Arcan's event variants and its store record.
func arcanEntries(b *Bundle, table *Object, add func(file, name string) error, src func(string) string) (string, error) {
	for i, m := range table.Arr("events") {
		mo, _ := m.(*Object)
		tag, file := mo.Str("part_type"), mo.Str("schema")
		if tag == "" || file == "" {
			return "", fmt.Errorf("publish: %s/dispatch.json: events[%d] needs part_type and schema", b.Dir(), i)
		}
		if err := add(file, ""); err != nil {
			return "", err
		}
		b.Messages = append(b.Messages, Message{Tag: tag, Parts: []Part{{Source: src(file)}}})
	}
	if rec := table.Str("store_record"); rec != "" {
		if err := add(rec, ""); err != nil {
			return "", err
		}
		b.Messages = append(b.Messages, Message{Kind: "record", Parts: []Part{{Source: src(rec)}}})
	}
	return "", nil
}

// arcanDispatch makes the root of an Arcan bundle: a dispatch on part_type,
// and the same dispatch for the AgentEvent union of a store record.
func arcanDispatch(b *Bundle, defs *Object, _ string) error {
	doc := b.Doc
	doc.Set("description", fmt.Sprintf("One Arcan AgentEvent (a JSONL line, or the data of one SSE frame), generated from the agentproto schema files of %s. "+
		"`part_type` selects the variant; a part_type the table does not list fails. A line of a session-store file is checked with #/$defs/%s instead.",
		b.Dir(), b.recordDef()))
	var cases []dcase
	members := map[string]string{} // def → part_type
	for _, m := range b.Messages {
		if m.Kind == "record" {
			continue
		}
		def := defs.Obj(m.Parts[0].Def)
		if c := constOf(def, "part_type"); c != m.Tag {
			return fmt.Errorf("publish: %s: dispatched as part_type %q but its part_type is %v", m.Parts[0].Source, m.Tag, c)
		}
		members[m.Parts[0].Def] = m.Tag
		cases = append(cases, dcase{cond: obj("const", m.Tag), then: obj("$ref", refTo(m.Parts[0].Def))})
	}
	applyDispatch(doc, "part_type", "The event variant; selects the schema of the whole event.", cases)
	// The AgentEvent union (the event of a store record) lists the same
	// variants: dispatch it the same way.
	for _, name := range defs.Keys() {
		d := defs.Obj(name)
		if d == nil || !d.Has("oneOf") || !sameRefs(d.Arr("oneOf"), members) {
			continue
		}
		if err := rewriteTagged(defs, name, "part_type", "The event variant; selects the schema of the whole event."); err != nil {
			return err
		}
	}
	return nil
}
