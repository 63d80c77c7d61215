package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
)

func TestDocReads(t *testing.T) {
	var a Arena
	d, err := a.Parse([]byte(` {"method":"session/update","params":{"sessionId":"s\u00e9","update":{"a~b":[1,{"c/d":true}],"n":null}},"list":["x","y"]} `), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ptr  string
		typ  Type
		want any
	}{
		{"/method", String, "session/update"},
		{"/params/sessionId", String, "sé"},
		{"/params/update/a~0b/1/c~1d", Bool, true},
		{"/params/update/a~0b/0", Number, "1"},
		{"/params/update/n", Null, nil},
		{"/list/1", String, "y"},
		{"/list/2", Invalid, nil},
		{"/list/01", Invalid, nil},
		{"/params/missing", Invalid, nil},
		{"/method/x", Invalid, nil},
	} {
		i := d.Find(c.ptr)
		if got := d.Type(i); got != c.typ {
			t.Errorf("%s: type %d, want %d", c.ptr, got, c.typ)
			continue
		}
		if got := fmt.Sprint(d.Value(i)); got != fmt.Sprint(c.want) {
			t.Errorf("%s: value %s, want %v", c.ptr, got, c.want)
		}
	}
	if !d.StringIs(d.Find("/params/sessionId"), "sé") || d.StringIs(d.Find("/method"), "session/new") {
		t.Error("StringIs disagrees with the value")
	}
	var keys []string
	d.Members(d.Root(), func(k string, _ int) bool { keys = append(keys, k); return true })
	if d := cmp.Diff([]string{"method", "params", "list"}, keys); d != "" {
		t.Errorf("Members (-want +got):\n%s", d)
	}
	// An earlier Doc stays whole when the arena grows for later lines.
	for i := range 100 {
		if _, err := a.Parse([]byte(`{"k":[`+strconv.Itoa(i)+`,2,3,4,5,6,7,8]}`), 0); err != nil {
			t.Fatal(err)
		}
	}
	if s, _ := d.String(d.Find("/list/0")); s != "x" {
		t.Errorf("after more lines, /list/0 = %q", s)
	}
	var zero Doc
	if zero.Root() != -1 || zero.Find("") != -1 || zero.Value(zero.Root()) != nil {
		t.Error("the zero Doc is not empty")
	}
}

func TestDocDuplicateKeys(t *testing.T) {
	many := `{`
	for i := range 40 {
		many += `"k` + strconv.Itoa(i) + `":0,`
	}
	for _, in := range []string{`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, many + `"k3":1}`, many + `"\u006b39":1}`} {
		var a Arena
		_, err := a.Parse([]byte(in), 0)
		_, want := Parse([]byte(in), 0)
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%.40q: error %v, want %v", in, err, want)
		}
	}
	var a Arena
	if _, err := a.Parse([]byte(many+`"k40":1}`), 0); err != nil {
		t.Errorf("forty distinct keys: %v", err)
	}
}

func FuzzDoc(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\ud83d\ude00"`, `{"a":1,"\u0061":2}`, "\xff", `[[[`, `-0.1e5`, `{"a~b":{"c/d":[true,false,"x\ny"]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := Parse(in, 64)
		var a Arena
		a.Parse([]byte(`{"before":[1,2]}`), 64)
		d, derr := a.Parse(in, 64)
		if fmt.Sprint(err) != fmt.Sprint(derr) {
			t.Fatalf("%q: Parse says %v, Arena.Parse %v", in, err, derr)
		}
		if err != nil {
			return
		}
		if diff := cmp.Diff(v, d.Value(d.Root())); diff != "" {
			t.Fatalf("%q: value (-Parse +Doc):\n%s", in, diff)
		}
		// Every value Parse built is where the Doc finds it.
		var walk func(v any, loc []string)
		walk = func(v any, loc []string) {
			i := d.FindPath(loc)
			ptr := ""
			for _, tok := range loc {
				ptr += "/" + jsonpointer.Escape(tok)
			}
			if j := d.Find(ptr); j != i {
				t.Fatalf("%q: Find(%q) = %d, FindPath = %d", in, ptr, j, i)
			}
			if diff := cmp.Diff(v, d.Value(i)); diff != "" {
				t.Fatalf("%q at %q (-Parse +Doc):\n%s", in, loc, diff)
			}
			if s, ok := v.(string); ok && !d.StringIs(i, s) {
				t.Fatalf("%q at %q: StringIs(%q) is false", in, loc, s)
			}
			switch v := v.(type) {
			case map[string]any:
				for k, c := range v {
					walk(c, append(loc[:len(loc):len(loc)], k))
				}
			case []any:
				for j, c := range v {
					walk(c, append(loc[:len(loc):len(loc)], strconv.Itoa(j)))
				}
			}
		}
		walk(v, nil)
	})
}

// BenchmarkDoc compares, on one line of a real ACP peer's kind, reading it
// into a Doc with Parse (which builds maps) and with encoding/json into
// any.
func BenchmarkDoc(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_bench","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Reading the configuration loader to see where the default timeout comes from."}}}}`)
	b.Run("doc", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		var a Arena
		for i := range b.N {
			if i%512 == 0 {
				a = Arena{}
			}
			if _, err := a.Parse(line, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for range b.N {
			if _, err := Parse(line, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for range b.N {
			var v any
			if err := json.Unmarshal(line, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestDocDepth(t *testing.T) {
	for in, want := range map[string]int{`1`: 0, `{}`: 1, `[[],{"a":[{}]}]`: 4, `{"a":{"b":2},"c":[1]}`: 2} {
		var a Arena
		d, err := a.Parse([]byte(in), 0)
		if err != nil {
			t.Fatal(err)
		}
		if d.Depth() != want {
			t.Errorf("%s: depth %d, want %d", in, d.Depth(), want)
		}
	}
}

// End finds every array and object by where it starts, and nothing else.
func TestDocEnd(t *testing.T) {
	in := []byte(` {"a":[1,{"b":"{["}],"c":{},"d":"x"} `)
	var a Arena
	d, err := a.Parse(in, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]int{}
	for _, ptr := range []string{"", "/a", "/a/1", "/c"} {
		raw := d.Raw(d.Find(ptr))
		start := bytes.Index(in, raw)
		want[start] = start + len(raw)
	}
	for i := range in {
		end, ok := want[i]
		if !ok {
			end = -1
		}
		if got := d.End(i); got != end {
			t.Errorf("End(%d) = %d, want %d", i, got, end)
		}
	}
}

// TestArenaChunks parses lines of many sizes into one Arena, so that Docs
// fill chunks, move to the next one and outgrow half a chunk: every Doc
// must still read back its own line afterwards, and once reset, the Arena
// reads the same lines again without allocating.
func TestArenaChunks(t *testing.T) {
	var lines [][]byte
	for i := range 400 {
		n := 1 + i%37
		if i%97 == 0 {
			n = arenaChunk // more nodes than half a chunk
		}
		var sb strings.Builder
		sb.WriteString(`{"i":` + strconv.Itoa(i) + `,"xs":[`)
		for j := range n {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Itoa(i * j))
		}
		sb.WriteString(`]}`)
		lines = append(lines, []byte(sb.String()))
	}
	var a Arena
	parseAll := func() []Doc {
		docs := make([]Doc, len(lines))
		for i, l := range lines {
			d, err := a.Parse(l, 0)
			if err != nil {
				t.Fatal(err)
			}
			docs[i] = d
		}
		return docs
	}
	docs := parseAll()
	for i, d := range docs {
		want, err := Parse(lines[i], 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, d.Value(d.Root())); diff != "" {
			t.Fatalf("line %d reads back wrong (-want +got):\n%s", i, diff)
		}
	}
	a.Reset()
	var small [][]byte // none outgrows half a chunk; together, several chunks
	for i, l := range lines {
		if i%97 != 0 {
			small = append(small, l)
		}
	}
	if allocs := testing.AllocsPerRun(1, func() {
		a.Reset()
		for _, l := range small {
			if _, err := a.Parse(l, 0); err != nil {
				t.Fatal(err)
			}
		}
	}); allocs != 0 {
		t.Errorf("a reset arena allocated %v times for %d lines", allocs, len(small))
	}
}
