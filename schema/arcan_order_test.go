package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/schema"
)

// arcanNode is a JSON value that keeps the order of object keys, which
// encoding/json maps lose: the tests need it both for the schemas (property
// order) and for the wire lines (field order).
type arcanNode struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys  []string
	vals  []*arcanNode
	elems []*arcanNode
	text  string // string value or number literal
	b     bool
}

func arcanParseOrdered(data []byte) (*arcanNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := arcanParseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return n, nil
}

func arcanParseValue(dec *json.Decoder) (*arcanNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			n := &arcanNode{kind: 'o'}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := arcanParseValue(dec)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &arcanNode{kind: 'a'}
			for dec.More() {
				v, err := arcanParseValue(dec)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
			_, err := dec.Token()
			return n, err
		}
	case string:
		return &arcanNode{kind: 's', text: tok}, nil
	case json.Number:
		return &arcanNode{kind: 'n', text: tok.String()}, nil
	case bool:
		return &arcanNode{kind: 'b', b: tok}, nil
	case nil:
		return &arcanNode{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// get returns the value of key k of an object, or nil.
func (n *arcanNode) get(k string) *arcanNode {
	if n == nil || n.kind != 'o' {
		return nil
	}
	if i := slices.Index(n.keys, k); i >= 0 {
		return n.vals[i]
	}
	return nil
}

// str returns the value of a string, or "".
func (n *arcanNode) str() string {
	if n == nil || n.kind != 's' {
		return ""
	}
	return n.text
}

// raw encodes n back to compact JSON, keys in their original order.
func (n *arcanNode) raw() string {
	var b strings.Builder
	n.encode(&b)
	return b.String()
}

func (n *arcanNode) encode(b *strings.Builder) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			n.vals[i].encode(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.encode(b)
		}
		b.WriteByte(']')
	case 's':
		sb, _ := json.Marshal(n.text)
		b.Write(sb)
	case 'n':
		b.WriteString(n.text)
	case 'b':
		fmt.Fprint(b, n.b)
	default:
		b.WriteString("null")
	}
}

func arcanLoadSchema(t testing.TB, p string) *arcanNode {
	t.Helper()
	raw, err := schema.Files.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	n, err := arcanParseOrdered(raw)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return n
}

// arcanOrderChecker checks that a wire line is formatted the way Arcan's
// serde_json writes it: compact, serde's string escapes, struct fields in the
// order of the schema's properties (which is Rust declaration order), and the
// keys of free-form JSON values (serde_json::Value, a sorted map in Arcan's
// build) in ascending byte order.
type arcanOrderChecker struct {
	files    map[string]*arcanNode // by path below schema/
	dispatch arcanDispatch
}

func newArcanOrderChecker(t testing.TB) *arcanOrderChecker {
	t.Helper()
	paths, err := schema.Paths("arcan")
	if err != nil {
		t.Fatal(err)
	}
	o := &arcanOrderChecker{files: map[string]*arcanNode{}, dispatch: loadArcanDispatch(t)}
	for _, p := range paths {
		o.files[p] = arcanLoadSchema(t, p)
	}
	return o
}

// check returns the formatting problems of one line.
func (o *arcanOrderChecker) check(data []byte, kind arcanTraceKind) []string {
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		return []string{fmt.Sprintf("not JSON: %v", err)}
	}
	var errs []string
	if !bytes.Equal(compact.Bytes(), data) {
		errs = append(errs, "not compact JSON (serde_json writes no whitespace between tokens)")
	}
	if err := arcanSerdeEscapes(data); err != nil {
		errs = append(errs, err.Error())
	}
	v, err := arcanParseOrdered(data)
	if err != nil {
		return append(errs, err.Error())
	}
	file := path.Join(arcanDir, o.dispatch.StoreRecord)
	if kind == arcanEventTrace {
		file = ""
		for _, e := range o.dispatch.Events {
			if e.PartType == v.get("part_type").str() {
				file = path.Join(arcanDir, e.Schema)
			}
		}
		if file == "" {
			return append(errs, fmt.Sprintf("unknown part_type %q", v.get("part_type").str()))
		}
	}
	o.walk(file, o.files[file], v, "", &errs)
	return errs
}

// resolve follows $ref until it reaches a schema without one.
func (o *arcanOrderChecker) resolve(file string, s *arcanNode) (string, *arcanNode) {
	for i := 0; s != nil && s.get("$ref") != nil && i < 32; i++ {
		ref := s.get("$ref").str()
		target, frag, _ := strings.Cut(ref, "#")
		if target != "" {
			file = path.Join(path.Dir(file), target)
		}
		s = o.files[file]
		for _, tok := range strings.Split(frag, "/")[1:] {
			s = s.get(tok)
		}
	}
	return file, s
}

func (o *arcanOrderChecker) walk(file string, s *arcanNode, v *arcanNode, ptr string, errs *[]string) {
	file, s = o.resolve(file, s)
	if s == nil {
		*errs = append(*errs, fmt.Sprintf("at %q: no schema", ptr))
		return
	}
	switch v.kind {
	case 'o':
		if u := s.get("oneOf"); u != nil {
			// A tagged union: follow the variant whose tag const the value carries.
			for _, br := range u.elems {
				f2, b2 := o.resolve(file, br)
				props := b2.get("properties")
				if props == nil {
					continue
				}
				for i, name := range props.keys {
					if c := props.vals[i].get("const"); c != nil && v.get(name).str() == c.str() && v.get(name) != nil {
						o.walk(f2, b2, v, ptr, errs)
						return
					}
				}
			}
			return // no variant matches: validation reports it
		}
		if u := s.get("anyOf"); u != nil {
			// A nullable object: follow the branch that describes objects.
			for _, br := range u.elems {
				f2, b2 := o.resolve(file, br)
				if b2.get("properties") != nil || b2.get("oneOf") != nil {
					o.walk(f2, b2, v, ptr, errs)
					return
				}
			}
			return
		}
		props := s.get("properties")
		if props == nil {
			o.sorted(v, ptr, errs)
			return
		}
		last := -1
		for i, k := range v.keys {
			idx := slices.Index(props.keys, k)
			if idx < 0 {
				continue // an unknown field: nothing to compare it with
			}
			if idx < last {
				*errs = append(*errs, fmt.Sprintf("at %q: field %q comes after %q, but serde writes it before", ptr, k, props.keys[last]))
			}
			last = max(last, idx)
			o.walk(file, props.vals[idx], v.vals[i], ptr+"/"+arcanEscapeToken(k), errs)
		}
	case 'a':
		items := s.get("items")
		for i, e := range v.elems {
			p := fmt.Sprintf("%s/%d", ptr, i)
			if items != nil {
				o.walk(file, items, e, p, errs)
			} else {
				o.sorted(e, p, errs)
			}
		}
	}
}

// sorted checks a free-form value: object keys in ascending byte order, at
// every depth.
func (o *arcanOrderChecker) sorted(v *arcanNode, ptr string, errs *[]string) {
	switch v.kind {
	case 'o':
		for i, k := range v.keys {
			if i > 0 && v.keys[i-1] >= k {
				*errs = append(*errs, fmt.Sprintf("at %q: key %q after %q; serde_json::Value writes keys sorted", ptr, k, v.keys[i-1]))
			}
			o.sorted(v.vals[i], ptr+"/"+arcanEscapeToken(k), errs)
		}
	case 'a':
		for i, e := range v.elems {
			o.sorted(e, fmt.Sprintf("%s/%d", ptr, i), errs)
		}
	}
}

// arcanSerdeEscapes checks that the string escapes of valid JSON text are the ones
// serde_json writes: \" \\ \b \f \n \r \t, and \u00xx (lowercase) for the
// other control characters only; everything else, non-ASCII included, raw.
func arcanSerdeEscapes(data []byte) error {
	in := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !in {
			in = c == '"'
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			if i+1 >= len(data) {
				return fmt.Errorf("truncated escape at byte %d", i)
			}
			i++
			switch data[i] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(data) {
					return fmt.Errorf("truncated escape at byte %d", i)
				}
				hex := string(data[i+1 : i+5])
				var cp int
				if _, err := fmt.Sscanf(hex, "%04x", &cp); err != nil || strings.ToLower(hex) != hex ||
					cp >= 0x20 || cp == 0x08 || cp == 0x09 || cp == 0x0a || cp == 0x0c || cp == 0x0d {
					return fmt.Errorf("escape \\u%s at byte %d: serde_json writes this character differently", hex, i-1)
				}
				i += 4
			default:
				return fmt.Errorf("escape \\%c at byte %d: serde_json never writes it", data[i], i-1)
			}
		}
	}
	return nil
}

// TestArcanOrderChecker makes sure the formatting check used on the fixtures
// and reference lines catches each kind of deviation.
func TestArcanOrderChecker(t *testing.T) {
	o := newArcanOrderChecker(t)
	tests := []struct {
		name, line string
		kind       arcanTraceKind
		wantErr    string
	}{
		{"serde line", `{"part_type":"tool_call_requested","run_id":"r","session_id":"s","iteration":1,"call":{"call_id":"c","tool_name":"t","input":{"a":1,"b":[{"x":1,"y":2}]}}}`, arcanEventTrace, ""},
		{"unknown field anywhere", `{"part_type":"text_delta","run_id":"r","session_id":"s","zz":0,"iteration":1,"delta":"d"}`, arcanEventTrace, ""},
		{"struct fields swapped", `{"part_type":"text_delta","run_id":"r","session_id":"s","delta":"d","iteration":1}`, arcanEventTrace, `field "iteration" comes after "delta"`},
		{"tag not first", `{"run_id":"r","part_type":"text_delta","session_id":"s","iteration":1,"delta":"d"}`, arcanEventTrace, `field "part_type" comes after "run_id"`},
		{"free-form keys unsorted", `{"part_type":"tool_call_requested","run_id":"r","session_id":"s","iteration":1,"call":{"call_id":"c","tool_name":"t","input":{"b":1,"a":2}}}`, arcanEventTrace, `at "/call/input": key "a" after "b"`},
		{"nested free-form keys unsorted", `{"part_type":"approval_requested","run_id":"r","session_id":"s","approval_id":"a","call_id":"c","tool_name":"t","arguments":[{"z":1,"y":2}],"risk":"low"}`, arcanEventTrace, `at "/arguments/0": key "y" after "z"`},
		{"nullable struct field order", `{"part_type":"state_patched","run_id":"r","session_id":"s","iteration":1,"patch":{"patch":{},"format":"merge_patch","source":"tool"},"revision":1}`, arcanEventTrace, `at "/patch": field "format" comes after "patch"`},
		{"usage field order", `{"part_type":"run_finished","run_id":"r","session_id":"s","reason":"completed","total_iterations":1,"final_answer":null,"usage":{"output_tokens":1,"input_tokens":1,"cache_read_tokens":0,"cache_creation_tokens":0}}`, arcanEventTrace, `at "/usage": field "input_tokens" comes after "output_tokens"`},
		{"store record event order", `{"id":"i","session_id":"s","parent_id":null,"timestamp":"2026-01-01T00:00:00Z","event":{"part_type":"text_delta","run_id":"r","session_id":"s","delta":"d","iteration":1}}`, arcanStoreTrace, `at "/event": field "iteration" comes after "delta"`},
		{"store record field order", `{"id":"i","session_id":"s","timestamp":"2026-01-01T00:00:00Z","parent_id":null,"event":{"part_type":"text_delta","run_id":"r","session_id":"s","iteration":1,"delta":"d"}}`, arcanStoreTrace, `field "parent_id" comes after "timestamp"`},
		{"whitespace", `{"part_type": "text_delta","run_id":"r","session_id":"s","iteration":1,"delta":"d"}`, arcanEventTrace, "not compact"},
		{"escaped slash", `{"part_type":"text_delta","run_id":"r","session_id":"s","iteration":1,"delta":"a\/b"}`, arcanEventTrace, `escape \/`},
		{"escaped non-ASCII", `{"part_type":"text_delta","run_id":"r","session_id":"s","iteration":1,"delta":"\u00e9"}`, arcanEventTrace, `escape \u00e9`},
		{"long form of newline", `{"part_type":"text_delta","run_id":"r","session_id":"s","iteration":1,"delta":"\u000a"}`, arcanEventTrace, `escape \u000a`},
		{"control escape", `{"part_type":"text_delta","run_id":"r","session_id":"s","iteration":1,"delta":"\u001b[0m"}`, arcanEventTrace, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := o.check([]byte(tt.line), tt.kind)
			if tt.wantErr == "" {
				if len(errs) > 0 {
					t.Errorf("unexpected problems: %v", errs)
				}
				return
			}
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tt.wantErr) }) {
				t.Errorf("problems %v, want one containing %q", errs, tt.wantErr)
			}
		})
	}
}
