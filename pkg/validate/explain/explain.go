// Package explain turns a schema failure (a jsonschema/v6 error tree) into
// findings a person can act on: one sentence per leaf cause, at its JSON
// pointer, naming the schema type, with the allowed values or the member
// that was probably meant. Only failing values come here; valid ones never
// pay for it. Elsewhere names, for a member a value's type does not define,
// the other versions of the protocol that define it there.
package explain

import (
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/internal/suggest"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// Explainer explains the schema failures of one protocol's messages. It is
// safe for concurrent use.
type Explainer struct {
	proto string
	docs  *Docs
}

// New returns an explainer that names types as "proto: Type".
func New(proto string, docs *Docs) *Explainer { return &Explainer{proto: proto, docs: docs} }

// Check validates a check's value against its schema and returns one
// finding per leaf cause of a failure, on the given line; nil when the
// value is valid.
func (e *Explainer) Check(ck protocol.Check, line int) []finding.Finding {
	return e.Explain(ck, ck.Schema.Validate(ck.Value), line)
}

// Explain turns err, the result of validating the check's value against its
// schema, into findings on the given line; nil when err is nil. It lets a
// caller that has validated already explain without validating again.
func (e *Explainer) Explain(ck protocol.Check, err error, line int) []finding.Finding {
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []finding.Finding{{Line: line, Severity: finding.Error, Rule: finding.RuleSchema, Pointer: protocol.Pointer(ck.Loc), Message: err.Error()}}
	}
	return e.explainTree(ck, verr, line, func(loc []string) any { return protocol.Lookup(ck.Value, loc) })
}

// explainTree explains an error tree of the check's value, which at
// gives the parts of.
func (e *Explainer) explainTree(ck protocol.Check, verr *jsonschema.ValidationError, line int, at func(loc []string) any) []finding.Finding {
	var out []finding.Finding
	for _, is := range e.Causes(verr, at, nil) {
		if ck.Skip != nil && ck.Skip(is.Loc) {
			continue
		}
		out = append(out, is.Finding(ck, line))
	}
	return out
}

// Causes is the leaf causes of verr, every one (ck.Skip is the caller's
// to apply), each explained; at gives the value at a location of the
// value validated. content, if set, is told of every value whose
// contents (not only its shape) a sentence quotes beyond the failed
// keywords' own, so that a cache of explanations knows what they read.
func (e *Explainer) Causes(verr *jsonschema.ValidationError, at func(loc []string) any, content func(loc []string)) []Cause {
	x := newExplainer(e.proto, e.docs)
	x.content = content
	return x.explain(verr, at)
}

// Finding is the cause as a finding of ck's value, on line.
func (is Cause) Finding(ck protocol.Check, line int) finding.Finding {
	loc := append(append([]string(nil), ck.Loc...), is.Loc...)
	return finding.Finding{Line: line, Severity: finding.Error, Rule: finding.RuleSchema, Pointer: protocol.Pointer(loc), Message: is.Msg}
}

// Cause is one leaf cause of a schema failure, explained.
type Cause struct {
	Loc []string // instance location, relative to the value validated
	Msg string   // the sentence
}

// explainer turns a jsonschema error tree into one sentence per leaf cause.
type explainer struct {
	proto   string
	docs    *Docs             // the schema documents, by file URL
	printer *xmessage.Printer // made when a kind without its own sentence first needs it
	// content, when set, is told of every value whose contents (not only
	// its shape) a sentence quotes beyond the failed keywords' own (see
	// Causes).
	content func(loc []string)
}

func newExplainer(proto string, docs *Docs) *explainer {
	return &explainer{proto: proto, docs: docs}
}

// schemaAt returns the raw schema at an absolute schema URL.
func (x *explainer) schemaAt(schemaURL string) map[string]any {
	file, frag, _ := strings.Cut(schemaURL, "#")
	v := x.docs.doc(file)
	for _, t := range protocol.SplitPointer(frag) {
		v = protocol.Lookup(v, []string{t})
	}
	m, _ := v.(map[string]any)
	return m
}

// explain returns the leaf causes of err, deduplicated, in a stable order.
func (x *explainer) explain(err *jsonschema.ValidationError, at func([]string) any) []Cause {
	out := x.collect(err, at)
	seen := make(map[string]bool, len(out))
	uniq := out[:0]
	for _, is := range out {
		key := protocol.Pointer(is.Loc) + "\x00" + is.Msg
		if seen[key] {
			continue
		}
		seen[key] = true
		uniq = append(uniq, is)
	}
	sort.SliceStable(uniq, func(i, j int) bool { return protocol.Pointer(uniq[i].Loc) < protocol.Pointer(uniq[j].Loc) })
	return uniq
}

func (x *explainer) collect(e *jsonschema.ValidationError, at func([]string) any) []Cause {
	switch k := e.ErrorKind.(type) {
	case *kind.OneOf:
		if len(k.Subschemas) >= 2 {
			if o, ok := at(e.InstanceLocation).(map[string]any); ok && o["jsonrpc"] != nil {
				_, res := o["result"]
				_, er := o["error"]
				if res && er {
					return []Cause{{e.InstanceLocation, fmt.Sprintf("has both \"result\" and \"error\": a JSON-RPC response carries exactly one of them, the result of a request that succeeded or the error of one that failed (%s)", x.where(e.SchemaURL))}}
				}
			}
			return []Cause{{e.InstanceLocation, fmt.Sprintf("matches more than one alternative of %s (numbers %d and %d); it must match exactly one (%s)", x.name(e.SchemaURL), k.Subschemas[0], k.Subschemas[1], x.where(e.SchemaURL))}}
		}
		return x.union(e, at)
	case *kind.AnyOf:
		return x.union(e, at)
	}
	if len(e.Causes) == 0 {
		out := x.leaf(e, at)
		if cond := x.condition(e, at); cond != "" {
			for i := range out {
				out[i].Msg = withCondition(out[i].Msg, cond)
			}
		}
		return out
	}
	var out []Cause
	for _, c := range e.Causes {
		out = append(out, x.collect(c, at)...)
	}
	return out
}

// branch is one failed alternative of a union. Its issues are made only
// when the union's explanation needs them (issuesOf): most alternatives
// lose on their tag, and explaining each would cost more than the rest
// of the line.
type branch struct {
	cause  *jsonschema.ValidationError
	issues []Cause
	made   bool
	leaves []*jsonschema.ValidationError
}

func (x *explainer) issuesOf(b *branch, at func([]string) any) []Cause {
	if !b.made {
		b.issues, b.made = x.collect(b.cause, at), true
	}
	return b.issues
}

func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leaves(c, out)
	}
	return out
}

// union explains a oneOf or anyOf that no alternative matched. A tagged
// union whose tag matches one alternative is explained by that alternative
// alone; a tag matching none gives one finding listing the allowed tags;
// otherwise the alternative that came closest explains the failure.
func (x *explainer) union(e *jsonschema.ValidationError, at func([]string) any) []Cause {
	loc := e.InstanceLocation
	if len(e.Causes) == 0 {
		return []Cause{{loc, fmt.Sprintf("matches none of the alternatives of %s", x.where(e.SchemaURL))}}
	}
	bs := make([]branch, len(e.Causes))
	for i, c := range e.Causes {
		bs[i] = branch{cause: c, leaves: leaves(c, nil)}
	}
	tagFails, selfFail := branchFails(bs, loc)
	// A property on which every alternative failed a const is a tag no
	// alternative accepts.
	if tag, ok := commonTag(tagFails); ok {
		var want []string
		var got any
		for _, tf := range tagFails {
			l := tf[tag]
			switch k := l.ErrorKind.(type) {
			case *kind.Const:
				got = k.Got
				want = appendUniq(want, bare(k.Want))
			case *kind.Enum:
				got = k.Got
				for _, w := range k.Want {
					want = appendUniq(want, bare(w))
				}
			}
		}
		tloc := append(append([]string(nil), loc...), tag)
		return []Cause{{tloc, fmt.Sprintf("%s is not one of %s%s (%s)", protocol.Display(got), strings.Join(want, ", "), didYouMean(got, want), x.where(e.SchemaURL))}}
	}
	plausible := plausibleOf(tagFails, selfFail)
	if len(plausible) == 0 {
		// Every alternative rejects the value itself: list what the
		// alternatives accept, values (a closed enum written as consts)
		// and types.
		all := true
		var values, types []string
		var got any
		var gotType string
		for i, b := range bs {
			if !selfFail[i] {
				all = false
				break
			}
			for _, l := range b.leaves {
				if len(l.InstanceLocation) != len(loc) {
					continue
				}
				switch k := l.ErrorKind.(type) {
				case *kind.Type:
					gotType = k.Got
					for _, w := range k.Want {
						types = appendUniq(types, w)
					}
				case *kind.Const:
					got = k.Got
					values = appendUniq(values, bare(k.Want))
				case *kind.Enum:
					got = k.Got
					for _, w := range k.Want {
						values = appendUniq(values, bare(w))
					}
				}
			}
		}
		switch {
		case all && len(values) > 0:
			msg := fmt.Sprintf("%s is not one of %s", protocol.Display(got), strings.Join(values, ", "))
			if len(types) > 0 {
				msg += " (or a " + strings.Join(types, " or ") + ")"
			}
			msg += didYouMean(got, values)
			return []Cause{{loc, fmt.Sprintf("%s (%s)", msg, x.where(e.SchemaURL))}}
		case all && len(types) > 0 && gotType == "number" && contains(types, "integer"):
			return []Cause{{loc, fmt.Sprintf("wrong type: got %s, a number with a fraction or an exponent; want %s (%s)", protocol.Display(at(loc)), listOr(types), x.where(e.SchemaURL))}}
		case all && len(types) > 0:
			return []Cause{{loc, fmt.Sprintf("wrong type: got %s, want %s (%s)", gotType, listOr(types), x.where(e.SchemaURL))}}
		}
		for i := range bs {
			plausible = append(plausible, i)
		}
	}
	// The alternative with the fewest complaints explains the value; of
	// two with as many, the one whose complaints lie deeper, as the value
	// fits more of its shape: a list of agent objects with a numeric
	// name is a list of objects with a wrong name, not a list of names
	// whose first is an object.
	best := plausible[0]
	for _, i := range plausible[1:] {
		ni, nb := x.issuesOf(&bs[i], at), x.issuesOf(&bs[best], at)
		if len(ni) < len(nb) || len(ni) == len(nb) && shallowest(ni) > shallowest(nb) {
			best = i
		}
	}
	return x.issuesOf(&bs[best], at)
}

// shallowest is the depth of the shallowest of issues.
func shallowest(issues []Cause) int {
	d := -1
	for _, is := range issues {
		if d < 0 || len(is.Loc) < d {
			d = len(is.Loc)
		}
	}
	return d
}

// branchFails reads, per failed alternative of a union at loc, the child
// properties where a const, an enum or a not failed, and whether the
// value itself has the wrong type or value.
func branchFails(bs []branch, loc []string) ([]map[string]*jsonschema.ValidationError, []bool) {
	tagFails := make([]map[string]*jsonschema.ValidationError, len(bs))
	selfFail := make([]bool, len(bs))
	for i, b := range bs {
		for _, l := range b.leaves {
			switch k := l.ErrorKind.(type) {
			case *kind.Const, *kind.Enum, *kind.Not:
				// A catch-all alternative rejects the tags the others
				// list with a not: it loses on the tag as they do.
				if len(l.InstanceLocation) == len(loc)+1 && protocol.HasPrefix(l.InstanceLocation, loc) {
					if tagFails[i] == nil {
						tagFails[i] = map[string]*jsonschema.ValidationError{}
					}
					tagFails[i][l.InstanceLocation[len(loc)]] = l
				} else if _, not := k.(*kind.Not); !not && len(l.InstanceLocation) == len(loc) {
					selfFail[i] = true
				}
			case *kind.Type:
				if len(l.InstanceLocation) == len(loc) {
					selfFail[i] = true
				}
			}
		}
	}
	return tagFails, selfFail
}

// plausibleOf lists the alternatives still in the running: those that
// lost neither on a discriminating property nor on the value's own type.
// A property whose value every alternative but one rejects with a const,
// an enum or a not is the union's tag, and that one alternative is the only one
// in the running (if the value's type suits it), whatever else of the
// value it rejects: a tool call whose kind is not a kind is a tool call
// with a wrong kind, not a value of another tag.
func plausibleOf(tagFails []map[string]*jsonschema.ValidationError, selfFail []bool) []int {
	// How many alternatives failed on each property: one that not all
	// failed on is accepted by another alternative.
	var fails map[string]int
	for _, tf := range tagFails {
		for p := range tf {
			if fails == nil {
				fails = map[string]int{}
			}
			fails[p]++
		}
	}
	if k, ok := tagged(tagFails, fails); ok && !selfFail[k] {
		return []int{k}
	}
	var plausible []int
	for i := range tagFails {
		if selfFail[i] {
			continue
		}
		lost := false
		for p := range tagFails[i] {
			if fails[p] < len(tagFails) {
				lost = true // another alternative accepts this property's value
				break
			}
		}
		if !lost {
			plausible = append(plausible, i)
		}
	}
	return plausible
}

// tagged returns the one alternative that accepts the value of a
// property every other alternative rejects (fails counts the alternatives
// that reject each), if there are at least two alternatives and every
// such property names the same one.
func tagged(tagFails []map[string]*jsonschema.ValidationError, fails map[string]int) (int, bool) {
	n := len(tagFails)
	if n < 2 {
		return -1, false
	}
	found := -1
	for p, c := range fails {
		if c != n-1 {
			continue
		}
		for k, tf := range tagFails {
			if _, rejects := tf[p]; rejects {
				continue
			}
			if found >= 0 && found != k {
				return -1, false
			}
			found = k
		}
	}
	return found, found >= 0
}

// Alternatives lists the failed alternatives of a union at loc (causes,
// one per alternative) whose causes the explanation of the union reads:
// none when the tag matches no alternative or every alternative rejects
// the value itself, else those in the running, else all. Nothing else of
// the others below loc's members is read, so a validator need not build
// their failures in full.
func Alternatives(causes []*jsonschema.ValidationError, loc []string) []int {
	if len(causes) == 0 {
		return nil
	}
	bs := make([]branch, len(causes))
	for i, c := range causes {
		bs[i] = branch{cause: c, leaves: leaves(c, nil)}
	}
	tagFails, selfFail := branchFails(bs, loc)
	if _, ok := commonTag(tagFails); ok {
		return nil
	}
	if plausible := plausibleOf(tagFails, selfFail); len(plausible) > 0 {
		return plausible
	}
	all := make([]int, len(causes))
	for i := range causes {
		if !selfFail[i] {
			for j := range all {
				all[j] = j
			}
			return all
		}
	}
	return nil // every alternative rejects the value itself
}

func commonTag(tagFails []map[string]*jsonschema.ValidationError) (string, bool) {
	if len(tagFails) == 0 {
		return "", false
	}
	var cands []string
	for p := range tagFails[0] {
		cands = append(cands, p)
	}
	sort.Strings(cands)
	for _, p := range cands {
		all := true
		for _, tf := range tagFails[1:] {
			if _, ok := tf[p]; !ok {
				all = false
				break
			}
		}
		if all {
			return p, true
		}
	}
	return "", false
}

func appendUniq(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

// leaf explains one failed keyword: one Cause, or one per missing field.
func (x *explainer) leaf(e *jsonschema.ValidationError, at func([]string) any) []Cause {
	loc := e.InstanceLocation
	if k, ok := e.ErrorKind.(*kind.Required); ok {
		obj, _ := at(loc).(map[string]any)
		out := make([]Cause, 0, len(k.Missing))
		for _, m := range k.Missing {
			s := fmt.Sprintf("missing required field %q", m)
			if near := suggest.NearKey(m, obj); near != "" {
				s += fmt.Sprintf("; found %q: did you mean %q?", near, m)
			}
			// The pointer is the object that lacks the field.
			out = append(out, Cause{loc, s + " (" + x.where(e.SchemaURL) + ")"})
		}
		return out
	}
	return []Cause{x.leafOne(e, at)}
}

func (x *explainer) leafOne(e *jsonschema.ValidationError, at func([]string) any) Cause {
	loc := e.InstanceLocation
	where := x.where(e.SchemaURL)
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		if k.Got == "number" && contains(k.Want, "integer") {
			// 4.5 where an integer is allowed: "got number, want
			// integer" reads as a contradiction.
			return Cause{loc, fmt.Sprintf("wrong type: got %s, a number with a fraction or an exponent; want %s (%s)", protocol.Display(at(loc)), listOr(k.Want), where)}
		}
		return Cause{loc, fmt.Sprintf("wrong type: got %s, want %s (%s)", k.Got, listOr(k.Want), where)}
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, bare(w))
		}
		return Cause{loc, fmt.Sprintf("%s is not one of %s%s (%s)", protocol.Display(k.Got), strings.Join(want, ", "), didYouMean(k.Got, want), where)}
	case *kind.Format:
		return Cause{loc, fmt.Sprintf("%s is not %s (%s)", protocol.Display(k.Got), formatHint(k.Want), where)}
	case *kind.Const:
		return Cause{loc, fmt.Sprintf("%s must be %s (%s)", protocol.Display(k.Got), protocol.Display(k.Want), where)}
	case *kind.AdditionalProperties:
		var names []string
		for _, p := range k.Properties {
			names = append(names, strconv.Quote(p))
		}
		noun := "field"
		if len(names) > 1 {
			noun = "fields"
		}
		return Cause{loc, fmt.Sprintf("unknown %s %s: this object is closed (%s)", noun, strings.Join(names, ", "), where)}
	case *kind.Not:
		sub, _ := x.schemaAt(e.SchemaURL)["not"].(map[string]any)
		desc, _ := sub["description"].(string)
		if req, ok := sub["required"].([]any); ok && len(req) > 0 && len(sub) <= 2 {
			var names []string
			for _, r := range req {
				names = append(names, fmt.Sprintf("%q", r))
			}
			msg := fmt.Sprintf("%s must not be present here", strings.Join(names, " and "))
			if len(names) > 1 {
				msg = fmt.Sprintf("%s must not both be present", strings.Join(names, " and "))
			}
			if desc != "" {
				msg += ": " + strings.TrimSuffix(desc, ".")
			}
			return Cause{loc, msg + " (" + where + ")"}
		}
		if desc != "" {
			return Cause{loc, fmt.Sprintf("not allowed: %s (%s)", strings.TrimSuffix(desc, "."), where)}
		}
		return Cause{loc, fmt.Sprintf("the value matches a shape that is not allowed here (%s)", where)}
	case *kind.FalseSchema:
		return Cause{loc, fmt.Sprintf("no value is allowed here (%s)", where)}
	case *kind.Minimum:
		return Cause{loc, fmt.Sprintf("%s is below the minimum %s (%s)", rat(k.Got), rat(k.Want), where)}
	case *kind.Maximum:
		return Cause{loc, fmt.Sprintf("%s is above the maximum %s (%s)", rat(k.Got), rat(k.Want), where)}
	case *kind.ExclusiveMinimum:
		return Cause{loc, fmt.Sprintf("%s must be greater than %s (%s)", rat(k.Got), rat(k.Want), where)}
	case *kind.ExclusiveMaximum:
		return Cause{loc, fmt.Sprintf("%s must be less than %s (%s)", rat(k.Got), rat(k.Want), where)}
	case *kind.MinLength:
		return Cause{loc, fmt.Sprintf("too short: %d characters, at least %d needed (%s)", k.Got, k.Want, where)}
	case *kind.MaxLength:
		return Cause{loc, fmt.Sprintf("too long: %d characters, at most %d allowed (%s)", k.Got, k.Want, where)}
	case *kind.MinItems:
		return Cause{loc, fmt.Sprintf("too few items: %d, at least %d needed (%s)", k.Got, k.Want, where)}
	case *kind.MaxItems:
		return Cause{loc, fmt.Sprintf("too many items: %d, at most %d allowed (%s)", k.Got, k.Want, where)}
	case *kind.Pattern:
		return Cause{loc, fmt.Sprintf("%s does not match the pattern %s (%s)", protocol.Display(k.Got), k.Want, where)}
	}
	if x.printer == nil {
		x.printer = xmessage.NewPrinter(language.English)
	}
	return Cause{loc, fmt.Sprintf("%s (%s)", e.ErrorKind.LocalizedString(x.printer), where)}
}

// didYouMean is "; did you mean X?" when got is a string that misspells
// one of the allowed values (end-turn for end_turn), or the start of one or
// two of them (allow for allow_once and allow_always); "" otherwise.
func didYouMean(got any, want []string) string {
	s, _ := got.(string)
	meant := suggest.Meant(s, want)
	if len(meant) == 0 {
		return ""
	}
	q := make([]string, len(meant))
	for i, w := range meant {
		q[i] = protocol.Quote(w)
	}
	return "; did you mean " + strings.Join(q, " or ") + "?"
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// listOr joins "a", "b", "c" as "a, b or c".
func listOr(list []string) string {
	if len(list) <= 1 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}

// formatHint says what a string of a JSON Schema format looks like.
func formatHint(format string) string {
	switch format {
	case "date-time":
		return "an RFC 3339 date-time such as 2026-05-13T09:30:00Z (date, \"T\", time and a Z or ±hh:mm offset)"
	case "date":
		return "an RFC 3339 full-date such as 2026-05-13"
	case "time":
		return "an RFC 3339 time such as 09:30:00Z"
	case "uri":
		return "an absolute URI such as file:///home/user/project or https://example.com/x"
	case "uri-reference":
		return "a URI reference"
	case "uuid":
		return "a UUID such as 0190f0e2-7b1c-7cc4-a1b2-3c4d5e6f7a8b"
	case "email":
		return "an email address"
	case "duration":
		return "an ISO 8601 duration such as PT30S"
	}
	return "a valid " + format
}

// condition describes, for a keyword inside an if/then/else, the if that
// selected it, with the values the message actually has: `code is
// "LEASE_EXPIRED"`. It returns "" for a keyword outside one, or an if it
// cannot put in words.
func (x *explainer) condition(e *jsonschema.ValidationError, at func([]string) any) string {
	file, frag, _ := strings.Cut(e.SchemaURL, "#")
	toks := protocol.SplitPointer(frag)
	for i := len(toks) - 1; i > 0; i-- {
		if toks[i] != "then" && toks[i] != "else" {
			continue
		}
		parent := x.schemaAt(file + "#" + protocol.Pointer(toks[:i]))
		ifs, ok := parent["if"].(map[string]any)
		if !ok {
			continue
		}
		depth := instanceDepth(toks[i+1:])
		if depth > len(e.InstanceLocation) {
			return ""
		}
		objLoc := e.InstanceLocation[:len(e.InstanceLocation)-depth]
		obj, _ := at(objLoc).(map[string]any)
		desc := describeIf(ifs, obj)
		if x.content != nil && desc != "" {
			props, _ := ifs["properties"].(map[string]any)
			for n := range props {
				x.content(append(append([]string(nil), objLoc...), n))
			}
		}
		if desc == "" {
			return ""
		}
		if toks[i] == "else" {
			return "unless " + desc
		}
		return "because " + desc
	}
	return ""
}

// instanceDepth is how many levels into the instance a schema path below a
// then or else goes.
func instanceDepth(toks []string) int {
	d := 0
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "properties", "patternProperties", "prefixItems", "$defs", "dependentSchemas":
			if toks[i] != "$defs" && toks[i] != "dependentSchemas" {
				d++
			}
			i++ // the name or index
		case "items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains", "propertyNames":
			d++
		}
	}
	return d
}

// describeIf puts an if of const, enum and required members in words, with
// the values obj has.
func describeIf(ifs, obj map[string]any) string {
	props, _ := ifs["properties"].(map[string]any)
	for k := range ifs {
		switch k {
		case "properties", "required", "description", "$comment":
		default:
			return ""
		}
	}
	var names []string
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		sub, _ := props[n].(map[string]any)
		if _, ok := sub["const"]; !ok {
			if _, ok := sub["enum"]; !ok {
				return ""
			}
		}
		v, ok := obj[n]
		if !ok {
			return ""
		}
		parts = append(parts, fmt.Sprintf("%s is %s", n, protocol.Display(v)))
	}
	if len(parts) == 0 {
		for _, r := range protocol.Strings(ifs, "/required") {
			parts = append(parts, protocol.Quote(r)+" is present")
		}
	}
	return strings.Join(parts, " and ")
}

// withCondition inserts a condition before the trailing "(proto: Type)"
// of a message.
func withCondition(msg, cond string) string {
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		return msg[:i] + " " + cond + msg[i:]
	}
	return msg + " " + cond
}

// where names the schema a keyword belongs to: "acp: ContentBlock".
func (x *explainer) where(schemaURL string) string {
	return x.proto + ": " + x.name(schemaURL)
}

// name is the nearest $defs name on the keyword's path, or else the title of
// the schema file.
func (x *explainer) name(schemaURL string) string {
	file, frag, _ := strings.Cut(schemaURL, "#")
	toks := strings.Split(frag, "/")
	for i := len(toks) - 2; i >= 0; i-- {
		if toks[i] == "$defs" || toks[i] == "definitions" {
			return toks[i+1]
		}
	}
	if t := x.docs.title(file); t != "" {
		return t
	}
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	return strings.TrimSuffix(file, ".json")
}

// rat renders a number exactly: integers in full, fractions as decimals.
func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return strings.TrimRight(strings.TrimRight(r.FloatString(12), "0"), ".")
}

// bare renders an allowed value in a list: strings without quotes.
func bare(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return protocol.Display(v)
}

// ExplainDoc is Explain for err, an error tree of node i of d (as a
// validator of parsed documents gives it), which holds the check's value: the values the sentences quote are
// built from the document, only where a sentence needs one.
func (e *Explainer) ExplainDoc(ck protocol.Check, err *jsonschema.ValidationError, d *jsonscan.Doc, i int, line int) []finding.Finding {
	if err == nil {
		return nil
	}
	return e.explainTree(ck, err, line, func(loc []string) any {
		n := i
		for _, tok := range loc {
			n = d.Child(n, tok)
		}
		return d.Value(n)
	})
}
