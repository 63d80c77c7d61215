package validate

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"

	"github.com/agentproto/agentproto/internal/jsonscan"
)

// issue is one leaf cause of a schema failure, explained.
type issue struct {
	loc []string // instance location, relative to the value validated
	msg string
}

// explainer turns a jsonschema error tree into one sentence per leaf cause.
type explainer struct {
	protocol string
	titles   map[string]string // schema file URL -> root title
	docs     map[string]any    // schema file URL -> document
	printer  *xmessage.Printer
}

func newExplainer(protocol string, titles map[string]string, docs map[string]any) *explainer {
	return &explainer{protocol: protocol, titles: titles, docs: docs, printer: xmessage.NewPrinter(language.English)}
}

// schemaAt returns the raw schema at an absolute schema URL.
func (x *explainer) schemaAt(schemaURL string) map[string]any {
	file, frag, _ := strings.Cut(schemaURL, "#")
	v := x.docs[file]
	for _, t := range splitPointer(frag) {
		v = lookup(v, []string{t})
	}
	m, _ := v.(map[string]any)
	return m
}

// explain returns the leaf causes of err, deduplicated, in a stable order.
func (x *explainer) explain(err *jsonschema.ValidationError, value any) []issue {
	out := x.collect(err, value)
	seen := make(map[string]bool, len(out))
	uniq := out[:0]
	for _, is := range out {
		key := pointer(is.loc) + "\x00" + is.msg
		if seen[key] {
			continue
		}
		seen[key] = true
		uniq = append(uniq, is)
	}
	sort.SliceStable(uniq, func(i, j int) bool { return pointer(uniq[i].loc) < pointer(uniq[j].loc) })
	return uniq
}

func (x *explainer) collect(e *jsonschema.ValidationError, value any) []issue {
	switch k := e.ErrorKind.(type) {
	case *kind.OneOf:
		if len(k.Subschemas) >= 2 {
			return []issue{{e.InstanceLocation, fmt.Sprintf("matches more than one alternative of %s (numbers %d and %d); it must match exactly one (%s)", x.name(e.SchemaURL), k.Subschemas[0], k.Subschemas[1], x.where(e.SchemaURL))}}
		}
		return x.union(e, value)
	case *kind.AnyOf:
		return x.union(e, value)
	}
	if len(e.Causes) == 0 {
		return x.leaf(e, value)
	}
	var out []issue
	for _, c := range e.Causes {
		out = append(out, x.collect(c, value)...)
	}
	return out
}

// branch is one failed alternative of a union.
type branch struct {
	issues []issue
	leaves []*jsonschema.ValidationError
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
func (x *explainer) union(e *jsonschema.ValidationError, value any) []issue {
	loc := e.InstanceLocation
	if len(e.Causes) == 0 {
		return []issue{{loc, fmt.Sprintf("matches none of the alternatives of %s", x.where(e.SchemaURL))}}
	}
	bs := make([]branch, len(e.Causes))
	for i, c := range e.Causes {
		bs[i] = branch{issues: x.collect(c, value), leaves: leaves(c, nil)}
	}
	// Per branch: the child properties where a const or enum failed, and
	// whether the value itself has the wrong type or value.
	tagFails := make([]map[string]*jsonschema.ValidationError, len(bs))
	selfFail := make([]bool, len(bs))
	for i, b := range bs {
		tagFails[i] = map[string]*jsonschema.ValidationError{}
		for _, l := range b.leaves {
			switch l.ErrorKind.(type) {
			case *kind.Const, *kind.Enum:
				if len(l.InstanceLocation) == len(loc)+1 && hasPrefix(l.InstanceLocation, loc) {
					tagFails[i][l.InstanceLocation[len(loc)]] = l
				} else if len(l.InstanceLocation) == len(loc) {
					selfFail[i] = true
				}
			case *kind.Type:
				if len(l.InstanceLocation) == len(loc) {
					selfFail[i] = true
				}
			}
		}
	}
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
		return []issue{{tloc, fmt.Sprintf("%s is not one of %s (%s)", display(got), strings.Join(want, ", "), x.where(e.SchemaURL))}}
	}
	// Alternatives that lost on a discriminating property or on the value's
	// own type are out of the running.
	var plausible []int
	for i := range bs {
		if selfFail[i] {
			continue
		}
		lost := false
		for p := range tagFails[i] {
			for j := range bs {
				if _, failed := tagFails[j][p]; !failed {
					lost = true // another alternative accepts this property's value
				}
			}
		}
		if !lost {
			plausible = append(plausible, i)
		}
	}
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
			msg := fmt.Sprintf("%s is not one of %s", display(got), strings.Join(values, ", "))
			if len(types) > 0 {
				msg += " (or a " + strings.Join(types, " or ") + ")"
			}
			return []issue{{loc, fmt.Sprintf("%s (%s)", msg, x.where(e.SchemaURL))}}
		case all && len(types) > 0:
			return []issue{{loc, fmt.Sprintf("wrong type: got %s, want %s (%s)", gotType, strings.Join(types, " or "), x.where(e.SchemaURL))}}
		}
		for i := range bs {
			plausible = append(plausible, i)
		}
	}
	best := plausible[0]
	for _, i := range plausible[1:] {
		if len(bs[i].issues) < len(bs[best].issues) {
			best = i
		}
	}
	return bs[best].issues
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

func hasPrefix(loc, prefix []string) bool {
	if len(loc) < len(prefix) {
		return false
	}
	for i := range prefix {
		if loc[i] != prefix[i] {
			return false
		}
	}
	return true
}

// leaf explains one failed keyword: one issue, or one per missing field.
func (x *explainer) leaf(e *jsonschema.ValidationError, value any) []issue {
	loc := e.InstanceLocation
	if k, ok := e.ErrorKind.(*kind.Required); ok {
		obj, _ := lookup(value, loc).(map[string]any)
		out := make([]issue, 0, len(k.Missing))
		for _, m := range k.Missing {
			s := fmt.Sprintf("missing required field %q", m)
			if near := nearName(m, obj); near != "" {
				s += fmt.Sprintf("; found %q: did you mean %q?", near, m)
			}
			// The pointer is the object that lacks the field.
			out = append(out, issue{loc, s + " (" + x.where(e.SchemaURL) + ")"})
		}
		return out
	}
	return []issue{x.leafOne(e)}
}

func (x *explainer) leafOne(e *jsonschema.ValidationError) issue {
	loc := e.InstanceLocation
	where := x.where(e.SchemaURL)
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return issue{loc, fmt.Sprintf("wrong type: got %s, want %s (%s)", k.Got, strings.Join(k.Want, " or "), where)}
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, bare(w))
		}
		return issue{loc, fmt.Sprintf("%s is not one of %s (%s)", display(k.Got), strings.Join(want, ", "), where)}
	case *kind.Const:
		return issue{loc, fmt.Sprintf("%s must be %s (%s)", display(k.Got), display(k.Want), where)}
	case *kind.AdditionalProperties:
		var names []string
		for _, p := range k.Properties {
			names = append(names, strconv.Quote(p))
		}
		noun := "field"
		if len(names) > 1 {
			noun = "fields"
		}
		return issue{loc, fmt.Sprintf("unknown %s %s: this object is closed (%s)", noun, strings.Join(names, ", "), where)}
	case *kind.Not:
		sub, _ := x.schemaAt(e.SchemaURL)["not"].(map[string]any)
		desc, _ := sub["description"].(string)
		if req, ok := sub["required"].([]any); ok && len(req) > 0 && len(sub) <= 2 {
			var names []string
			for _, r := range req {
				names = append(names, fmt.Sprintf("%q", r))
			}
			msg := fmt.Sprintf("%s must not be present here", strings.Join(names, " and "))
			if desc != "" {
				msg += ": " + strings.TrimSuffix(desc, ".")
			}
			return issue{loc, msg + " (" + where + ")"}
		}
		if desc != "" {
			return issue{loc, fmt.Sprintf("not allowed: %s (%s)", strings.TrimSuffix(desc, "."), where)}
		}
		return issue{loc, fmt.Sprintf("the value matches a shape that is not allowed here (%s)", where)}
	case *kind.FalseSchema:
		return issue{loc, fmt.Sprintf("no value is allowed here (%s)", where)}
	case *kind.Minimum:
		return issue{loc, fmt.Sprintf("%s is below the minimum %s (%s)", rat(k.Got), rat(k.Want), where)}
	case *kind.Maximum:
		return issue{loc, fmt.Sprintf("%s is above the maximum %s (%s)", rat(k.Got), rat(k.Want), where)}
	case *kind.ExclusiveMinimum:
		return issue{loc, fmt.Sprintf("%s must be greater than %s (%s)", rat(k.Got), rat(k.Want), where)}
	case *kind.ExclusiveMaximum:
		return issue{loc, fmt.Sprintf("%s must be less than %s (%s)", rat(k.Got), rat(k.Want), where)}
	case *kind.MinLength:
		return issue{loc, fmt.Sprintf("too short: %d characters, at least %d needed (%s)", k.Got, k.Want, where)}
	case *kind.MaxLength:
		return issue{loc, fmt.Sprintf("too long: %d characters, at most %d allowed (%s)", k.Got, k.Want, where)}
	case *kind.MinItems:
		return issue{loc, fmt.Sprintf("too few items: %d, at least %d needed (%s)", k.Got, k.Want, where)}
	case *kind.MaxItems:
		return issue{loc, fmt.Sprintf("too many items: %d, at most %d allowed (%s)", k.Got, k.Want, where)}
	case *kind.Pattern:
		return issue{loc, fmt.Sprintf("%s does not match the pattern %s (%s)", display(k.Got), k.Want, where)}
	}
	return issue{loc, fmt.Sprintf("%s (%s)", e.ErrorKind.LocalizedString(x.printer), where)}
}

// where names the schema a keyword belongs to: "acp: ContentBlock".
func (x *explainer) where(schemaURL string) string {
	return x.protocol + ": " + x.name(schemaURL)
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
	if t := x.titles[file]; t != "" {
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
	return display(v)
}

// display renders a JSON value for a message: strings quoted, the rest as
// compact JSON, long values cut.
func display(v any) string {
	var s string
	switch v := v.(type) {
	case string:
		s = strconv.Quote(v)
	case json.Number:
		s = string(v)
	case nil:
		s = "null"
	default:
		b, err := json.Marshal(v)
		if err != nil {
			s = fmt.Sprint(v)
		} else {
			s = string(b)
		}
	}
	if len(s) > 80 {
		cut := 77
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func pointer(loc []string) string {
	var sb strings.Builder
	for _, t := range loc {
		sb.WriteByte('/')
		sb.WriteString(jsonscan.EscapePointer(t))
	}
	return sb.String()
}

// lookup follows loc into v.
func lookup(v any, loc []string) any {
	for _, t := range loc {
		switch c := v.(type) {
		case map[string]any:
			v = c[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// nearName returns the key of obj that most likely stands for the missing
// field want: the same name in another case or spelling (snake_case for
// camelCase), a shortened or lengthened form (modeId for currentModeId,
// commands for availableCommands, dimensions for dims), or a small typo.
func nearName(want string, obj map[string]any) string {
	if len(obj) == 0 {
		return ""
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if k != want {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	w := fold(want)
	tests := []func(k string) bool{
		func(k string) bool { return fold(k) == w },
		func(k string) bool {
			f := fold(k)
			return len(f) >= 3 && (strings.HasSuffix(w, f) || strings.HasSuffix(f, w))
		},
		func(k string) bool {
			f := fold(k)
			return len(f) >= 3 && len(w) >= 3 && f[0] == w[0] && (subsequence(w, f) || subsequence(f, w))
		},
		func(k string) bool {
			f := fold(k)
			return len(w) >= 4 && len(f) >= 4 && levenshtein(f, w) <= 2
		},
	}
	for _, test := range tests {
		for _, k := range keys {
			if test(k) {
				return k
			}
		}
	}
	return ""
}

// fold lower-cases s and drops separators, so that sessionId, session_id
// and SessionID compare equal.
func fold(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r == '_' || r == '-' || r == '.' {
			continue
		}
		sb.WriteRune(unicode.ToLower(r))
	}
	return sb.String()
}

// subsequence reports whether short's letters appear in long in order.
func subsequence(short, long string) bool {
	if len(short) >= len(long) {
		return false
	}
	i := 0
	for j := 0; j < len(long) && i < len(short); j++ {
		if long[j] == short[i] {
			i++
		}
	}
	return i == len(short)
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
