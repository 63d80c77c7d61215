package publish

import (
	"fmt"
	"strings"
)

// arcpEntries reads ARCP's message types and job.event kinds.
func arcpEntries(b *Bundle, table *Object, add func(file, name string) error, src func(string) string) (string, error) {
	for _, list := range []struct {
		key, tag string
		out      *[]Message
	}{{"messages", "type", &b.Messages}, {"events", "kind", &b.Events}} {
		for i, m := range table.Arr(list.key) {
			mo, _ := m.(*Object)
			tag, file := mo.Str(list.tag), mo.Str("schema")
			if tag == "" || file == "" {
				return "", fmt.Errorf("publish: %s/dispatch.json: %s[%d] needs %s and schema", b.Dir(), list.key, i, list.tag)
			}
			if err := add(file, ""); err != nil {
				return "", err
			}
			*list.out = append(*list.out, Message{Tag: tag, Parts: []Part{{Source: src(file)}}})
		}
	}
	return "", nil
}

// arcpDispatch makes the root of an ARCP bundle: a dispatch on type, and the
// job.event payload's on kind.
func arcpDispatch(b *Bundle, defs *Object, _ string) error {
	doc := b.Doc
	dialect := "canonical ARCP " + strings.TrimPrefix(b.Name, "v")
	if !numberedVersion.MatchString(b.Name) {
		dialect = "the " + b.Name + " dialect of ARCP"
	}
	doc.Set("description", fmt.Sprintf("One ARCP message (a whole wire line, envelope and payload) in %s, generated from the agentproto schema files of %s. "+
		"`type` selects the definition of the message type; a type the table does not list fails.", dialect, b.Dir())+
		map[bool]string{true: " The payload of a job.event is selected the same way by its `kind`: a reserved kind's body follows its own definition, and `x-vendor.` kinds take any object body.", false: ""}[len(b.Events) > 0])
	var cases []dcase
	for _, m := range b.Messages {
		def := defs.Obj(m.Parts[0].Def)
		if c := constOf(def, "type"); c != m.Tag {
			return fmt.Errorf("publish: %s: dispatched as type %q but its type is %v", m.Parts[0].Source, m.Tag, c)
		}
		cases = append(cases, dcase{cond: obj("const", m.Tag), then: obj("$ref", refTo(m.Parts[0].Def))})
	}
	applyDispatch(doc, "type", "The message type; selects the schema of the whole line.", cases)
	if len(b.Events) > 0 {
		if err := b.eventPayload(defs); err != nil {
			return err
		}
	}
	return nil
}
