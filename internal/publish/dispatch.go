package publish

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// dispatch fills in the root of the bundle: a dispatch on the protocol's
// discriminator with if/then, one branch per message, and a guard that
// rejects a discriminator value the table does not list. For ARCP it also
// turns the job.event payload union into a dispatch on kind, and for Arcan
// the AgentEvent union into a dispatch on part_type, so that a validator
// reports the errors of the one matching variant.
func (b *Bundle) dispatch(defs *Object, envelope string) error {
	b.Doc.Set("title", pascal(b.Protocol)+pascal(b.Name)+"Message")
	p, ok := lookupProtocol(b.Protocol)
	if !ok {
		return fmt.Errorf("publish: %s: unknown protocol %q", b.Dir(), b.Protocol)
	}
	return p.dispatch(b, defs, envelope)
}

// recordDef is the definition of Arcan's store record.
func (b *Bundle) recordDef() string {
	for _, m := range b.Messages {
		if m.Kind == "record" {
			return m.Parts[0].Def
		}
	}
	return ""
}

// eventPayload turns the payload union of ARCP's job.event into a dispatch on
// kind, after checking that it lists the kinds of the dispatch table.
func (b *Bundle) eventPayload(defs *Object) error {
	var job *Message
	for i := range b.Messages {
		if b.Messages[i].Tag == "job.event" {
			job = &b.Messages[i]
		}
	}
	if job == nil {
		return fmt.Errorf("publish: %s/dispatch.json lists event kinds but no job.event message", b.Dir())
	}
	ref := defs.Obj(job.Parts[0].Def).Obj("properties").Obj("payload").Str("$ref")
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok || defs.Obj(name) == nil {
		return fmt.Errorf("publish: %s: the payload of job.event is not a definition", job.Parts[0].Source)
	}
	if err := rewriteTagged(defs, name, "kind", "The event kind; selects the schema of the event and its body."); err != nil {
		return err
	}
	// Every kind of the table has its branch.
	consts := map[any]bool{}
	for _, c := range defs.Obj(name).Obj("properties").Obj("kind").Arr("enum") {
		consts[c] = true
	}
	if g := defs.Obj(name).Obj("properties").Obj("kind").Arr("anyOf"); len(g) > 0 {
		for _, c := range g[0].(*Object).Arr("enum") {
			consts[c] = true
		}
	}
	for _, e := range b.Events {
		if !consts[e.Tag] {
			return fmt.Errorf("publish: %s: the job.event payload has no variant for kind %q of the dispatch table", job.Parts[0].Source, e.Tag)
		}
	}
	return nil
}

// sameRefs reports whether a oneOf lists exactly the definitions of members,
// each as a plain $ref.
func sameRefs(variants []any, members map[string]string) bool {
	seen := map[string]bool{}
	for _, v := range variants {
		o, ok := v.(*Object)
		if !ok {
			return false
		}
		for _, k := range o.Keys() {
			if k != "$ref" && k != "title" && k != "description" {
				return false
			}
		}
		name, ok := strings.CutPrefix(o.Str("$ref"), "#/$defs/")
		if !ok || members[name] == "" || seen[name] {
			return false
		}
		seen[name] = true
	}
	return len(seen) == len(members)
}

// dcase is one branch of a dispatch: when the tag matches cond, then applies.
type dcase struct {
	cond *Object
	then *Object
}

// tagIf is the condition of a branch: the tag is present and matches cond.
func tagIf(tag string, cond *Object) *Object {
	return obj("properties", obj(tag, cond), "required", []any{tag})
}

// applyDispatch makes s an object schema that requires tag, accepts only the
// tag values of the cases, and applies each case's schema when its tag
// matches.
func applyDispatch(s *Object, tag, desc string, cases []dcase) {
	var consts []any
	var others []any
	all := s.Arr("allOf")
	for _, c := range cases {
		if v, ok := c.cond.Get("const"); ok && c.cond.Len() == 1 {
			consts = append(consts, v)
		} else {
			others = append(others, c.cond)
		}
		all = append(all, obj("if", tagIf(tag, c.cond), "then", c.then))
	}
	guard := obj("description", desc)
	if len(others) == 0 {
		guard.Set("enum", consts)
	} else {
		guard.Set("anyOf", append([]any{obj("enum", consts)}, others...))
	}
	s.Set("type", "object")
	req := s.Arr("required")
	if !slices.Contains(req, any(tag)) {
		req = append(req, tag)
	}
	s.Set("required", req)
	props := s.Obj("properties")
	if props == nil {
		props = newObject()
	}
	props.Set(tag, guard)
	s.Set("properties", props)
	s.Set("allOf", all)
}

// rewriteTagged replaces the oneOf of the definition name, a union tagged by
// tag, with a dispatch. The result accepts exactly what the oneOf accepts:
// every variant is an object that requires the tag, the constant tags are
// distinct, and a catch-all variant's tag schema accepts none of them, so at
// most one variant can match any value and the if/then branches pick it.
func rewriteTagged(defs *Object, name, tag, desc string) error {
	def := defs.Obj(name)
	if def == nil {
		return fmt.Errorf("publish: no definition %s", name)
	}
	for _, k := range def.Keys() {
		switch k {
		case "oneOf", "title", "description", "x-go-name", "$comment", "examples":
		default:
			return fmt.Errorf("publish: definition %s: cannot turn a union with %q into a dispatch", name, k)
		}
	}
	var cases []dcase
	var catchAll []*Object
	seen := map[any]bool{}
	for i, v := range def.Arr("oneOf") {
		variant, ok := v.(*Object)
		if !ok {
			return fmt.Errorf("publish: %s/oneOf/%d: not a schema object", name, i)
		}
		// The variant itself, or the definition it references.
		body := variant
		if r := variant.Str("$ref"); r != "" {
			target, _ := strings.CutPrefix(r, "#/$defs/")
			body = defs.Obj(target)
			if body == nil {
				return fmt.Errorf("publish: %s/oneOf/%d: $ref %s is not a definition", name, i, r)
			}
		}
		ts := body.Obj("properties").Obj(tag)
		if ts == nil || !slices.Contains(body.Arr("required"), any(tag)) || body.Str("type") != "object" {
			return fmt.Errorf("publish: %s/oneOf/%d: not an object that requires %s", name, i, tag)
		}
		var cond *Object
		if c, ok := ts.Get("const"); ok {
			if seen[c] {
				return fmt.Errorf("publish: %s/oneOf/%d: %s %v is used twice", name, i, tag, c)
			}
			seen[c] = true
			cond = obj("const", c)
		} else {
			cond = clone(ts).(*Object)
			for _, k := range []string{"description", "examples", "title"} {
				cond.Delete(k)
			}
			catchAll = append(catchAll, cond)
		}
		cases = append(cases, dcase{cond: cond, then: variant})
	}
	if len(cases) == 0 {
		return fmt.Errorf("publish: definition %s has no variants", name)
	}
	// A catch-all must not accept a constant tag: the oneOf would then fail
	// a value the dispatch accepts.
	for _, c := range catchAll {
		sch, err := compileStandalone(c)
		if err != nil {
			return fmt.Errorf("publish: %s: tag schema of a catch-all variant: %w", name, err)
		}
		for k := range seen {
			if sch.Validate(k) == nil {
				return fmt.Errorf("publish: %s: the catch-all variant also accepts %s %v", name, tag, k)
			}
		}
	}
	if len(catchAll) > 1 {
		return fmt.Errorf("publish: %s: more than one catch-all variant", name)
	}
	def.Delete("oneOf")
	applyDispatch(def, tag, desc, cases)
	return nil
}

// compileStandalone compiles a schema without references.
func compileStandalone(s *Object) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	const u = "urn:agentproto:publish:tag"
	if err := c.AddResource(u, toPlain(s)); err != nil {
		return nil, fmt.Errorf("adding the schema: %w", err)
	}
	sch, err := c.Compile(u)
	if err != nil {
		return nil, fmt.Errorf("compiling: %w", err)
	}
	return sch, nil
}

// constOf returns the const of the property prop of s, or nil.
func constOf(s *Object, prop string) any {
	c, _ := s.Obj("properties").Obj(prop).Get("const")
	return c
}

// recordsNote describes the records of an ACP dialect, which are not
// JSON-RPC lines and so are not dispatched by the root.
func (b *Bundle) recordsNote() string {
	var recs []string
	for _, m := range b.Messages {
		if m.Kind == "record" {
			recs = append(recs, fmt.Sprintf("%s with #/$defs/%s", m.Tag, m.Parts[0].Def))
		}
	}
	if len(recs) == 0 {
		return ""
	}
	return " Records that are not JSON-RPC messages are checked with their own definition, not with the root: " + strings.Join(recs, ", ") + "."
}
