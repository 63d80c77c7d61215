// Reading a VT Code trace line by line: what the dispatch table says each
// line is, the schema checks it needs, and their failures in short.

package schema_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/agentproto/agentproto/pkg/wire"
)

// vtcodeCheck is one validation a line needs: a value at a pointer of the
// line and the schema it must satisfy.
type vtcodeCheck struct {
	url    string
	prefix string // pointer of value within the line
	value  any
}

// vtcodeClassified says what a line is, as the dispatch table sees it.
type vtcodeClassified struct {
	kind   string // request, notification, response, record
	name   string // method, or record name
	checks []vtcodeCheck
}

// vtcodeDispatcher classifies the lines of one trace in order, pairing each
// response with the request sent the other way.
type vtcodeDispatcher struct {
	d       *vtcodeDispatch
	dir     string // schema folder the table belongs to
	pending map[string]string
}

func vtcodeNewDispatcher(d *vtcodeDispatch, dir string) *vtcodeDispatcher {
	return &vtcodeDispatcher{d: d, dir: dir, pending: map[string]string{}}
}

// vtcodeIDKey names a request id of one direction; ok is false for an id that
// is not a string or an integer.
func vtcodeIDKey(dir string, id any) (string, bool) {
	switch v := id.(type) {
	case string:
		return dir + " s:" + v, true
	case float64:
		if v == float64(int64(v)) {
			return dir + " n:" + strconv.FormatInt(int64(v), 10), true
		}
	}
	return "", false
}

func vtcodeOpposite(dir string) string {
	if dir == "c2a" {
		return "a2c"
	}
	return "c2a"
}

func vtcodeMember(val any, key string) any {
	m, _ := val.(map[string]any)
	return m[key]
}

func (v *vtcodeDispatcher) classify(l vtcodeLine) (vtcodeClassified, error) {
	obj := l.obj
	_, hasMethod := obj["method"]
	_, hasID := obj["id"]
	_, hasRPC := obj["jsonrpc"]
	env := vtcodeURL(v.dir, v.d.Envelope)
	switch {
	case hasMethod:
		name, _ := obj["method"].(string)
		kind, def := "notification", "#/$defs/Notification"
		if hasID {
			kind, def = "request", "#/$defs/Request"
		}
		c := vtcodeClassified{kind: kind, name: name, checks: []vtcodeCheck{{url: env + def, value: l.val}}}
		m, ok := v.d.method(name)
		if !ok {
			return c, fmt.Errorf("method %q is not in %s/dispatch.json", name, v.dir)
		}
		if m.Kind != kind {
			return c, fmt.Errorf("%s is a %s in the table but the line is a %s", name, m.Kind, kind)
		}
		c.checks = append(c.checks, vtcodeCheck{url: vtcodeURL(v.dir, m.Params), prefix: "/params", value: vtcodeMember(l.val, "params")})
		if hasID {
			if k, ok := vtcodeIDKey(l.dir, obj["id"]); ok {
				v.pending[k] = name
			}
		}
		return c, nil
	case hasID || hasRPC:
		c := vtcodeClassified{kind: "response", checks: []vtcodeCheck{{url: env + "#/$defs/Response", value: l.val}}}
		k, ok := vtcodeIDKey(vtcodeOpposite(l.dir), obj["id"])
		name, found := v.pending[k]
		if !ok || !found {
			return c, fmt.Errorf("response id %v answers no request sent the other way", obj["id"])
		}
		delete(v.pending, k)
		c.name = name
		if _, isResult := obj["result"]; isResult {
			m, _ := v.d.method(name)
			c.checks = append(c.checks, vtcodeCheck{url: vtcodeURL(v.dir, m.Result), prefix: "/result", value: vtcodeMember(l.val, "result")})
		}
		return c, nil
	default:
		r, ok := v.d.record(obj)
		if !ok {
			return vtcodeClassified{kind: "record"}, fmt.Errorf("no record of %s/dispatch.json matches the members %v", v.dir, acpSortedKeys(obj))
		}
		return vtcodeClassified{kind: "record", name: r.Record, checks: []vtcodeCheck{{url: vtcodeURL(v.dir, r.Schema), value: l.val}}}, nil
	}
}

// vtcodeRun validates every check of a line and returns the pointers (within
// the line) of the innermost errors that explain the failure, or nil when the
// line is valid.
func vtcodeRun(t testing.TB, set *vtcodeSchemas, c vtcodeClassified) ([]string, error) {
	t.Helper()
	var out []string
	var first error
	for _, ch := range c.checks {
		sch, err := set.get(ch.url)
		if err != nil {
			t.Fatalf("%v", err)
		}
		err = sch.Validate(ch.value)
		if err == nil {
			continue
		}
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("validating against %s: %v", ch.url, err)
		}
		if first == nil {
			first = err
		}
		for _, leaf := range vtcodeLeaves(ve) {
			out = append(out, ch.prefix+vtcodePointer(leaf.InstanceLocation))
		}
	}
	return out, first
}

func vtcodePointer(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteString("/")
		b.WriteString(wire.EscapePointer(tok))
	}
	return b.String()
}

// vtcodeLeaves returns the innermost errors that explain e. For a tagged
// union, the variants whose tag does not match the value's tag are left out;
// when no variant's tag matches, the tag errors alone explain the failure.
func vtcodeLeaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var causes []*jsonschema.ValidationError
	switch e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
		var tags []*jsonschema.ValidationError
		for _, c := range e.Causes {
			if tc := vtcodeTagErrors(c, e.InstanceLocation); len(tc) > 0 {
				tags = append(tags, tc...)
			} else {
				causes = append(causes, c)
			}
		}
		if len(causes) == 0 {
			return tags
		}
	default:
		causes = e.Causes
	}
	var out []*jsonschema.ValidationError
	for _, c := range causes {
		out = append(out, vtcodeLeaves(c)...)
	}
	return out
}

// vtcodeTagErrors returns the const errors of a union variant on a member of
// the object at loc, raised by the variant's own properties/<member>/const.
func vtcodeTagErrors(e *jsonschema.ValidationError, loc []string) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	if _, ok := e.ErrorKind.(*kind.Const); ok && len(e.InstanceLocation) == len(loc)+1 &&
		slices.Equal(e.InstanceLocation[:len(loc)], loc) &&
		strings.HasSuffix(e.SchemaURL, "/properties/"+wire.EscapePointer(e.InstanceLocation[len(loc)])) {
		out = append(out, e)
	}
	for _, c := range e.Causes {
		if len(c.InstanceLocation) <= len(loc)+1 {
			out = append(out, vtcodeTagErrors(c, loc)...)
		}
	}
	return out
}

func vtcodeUnder(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}

func vtcodeShort(err error) string {
	if err == nil {
		return "valid"
	}
	s := err.Error()
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}
