// Command historygen writes each ACP wire version's history table
// (schema/acp/v1/history.json, schema/acp/v2/history.json): the members,
// methods and string values that an earlier release of the official ACP
// schema defined and today's no longer does, each with the releases that
// defined it, keyed by the place our own schemas give it.
//
// Its input is the release history in the reference material
// (../shared/reference/acp/history/releases.json), which names each member
// by the official $defs type that held it in that release. Types were
// renamed over time (NewSessionOutput became NewSessionResponse), so a type
// is matched to ours by its name with the old suffixes made new; a member
// of a union's variant whose tag value was retired (the env_var auth
// method) is kept under the union, with the tag that selects it. What
// replaced a retired item, where the protocol says, comes from
// schema/acp/history-notes.json.
//
//	go run ./internal/historygen -releases ../shared/reference/acp/history/releases.json -schema schema
//
// When the release history is absent (a clone without ../shared), the
// tables are left as they are and the command says so: they are committed,
// and make check proves them fresh where the reference is present.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

func main() {
	releases := flag.String("releases", "", "the release history (releases.json of the reference material)")
	dir := flag.String("schema", "schema", "the schema folder")
	verbose := flag.Bool("v", false, "list the retired items no type of ours holds")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: historygen -releases FILE [-schema DIR] [-v]\n\nWrites DIR/acp/<version>/history.json for each wire version of ACP.")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *releases == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*releases, *dir, *verbose); err != nil {
		if errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), *releases) {
			fmt.Fprintf(os.Stderr, "historygen: %s is absent: the history tables are left as they are\n", *releases)
			return
		}
		fmt.Fprintf(os.Stderr, "historygen: %v\n", err)
		os.Exit(1)
	}
}

// entry is one item of releases.json.
type entry struct {
	Version   string   `json:"version"`
	Type      string   `json:"type"`
	Member    string   `json:"member"`
	Side      string   `json:"side"`
	Method    string   `json:"method"`
	Value     string   `json:"value"`
	First     string   `json:"first"`
	FirstDate string   `json:"firstDate"`
	Last      string   `json:"last"`
	LastDate  string   `json:"lastDate"`
	Current   bool     `json:"current"`
	Schemas   []string `json:"schemas"`
}

type releasesFile struct {
	About   string  `json:"about"`
	Members []entry `json:"members"`
	Methods []entry `json:"methods"`
	Values  []entry `json:"values"`
}

// notes is history-notes.json: what replaced a retired item, by its
// official name.
type notes struct {
	Comment string            `json:"$comment"`
	Members map[string]string `json:"members"` // "Type.member" → successor
	Methods map[string]string `json:"methods"` // method → successor
	Values  map[string]string `json:"values"`  // "Type.member=value" → successor
}

// span is when an item was defined: the first and last release, with their
// dates, and whether only the unstable schema had it.
type span struct {
	First     string `json:"first"`
	FirstDate string `json:"firstDate"`
	Last      string `json:"last"`
	LastDate  string `json:"lastDate"`
	Unstable  bool   `json:"unstable,omitempty"`
	Successor string `json:"successor,omitempty"`
}

// Out rows: see schema/registry's History for their meaning.
type member struct {
	Type   string   `json:"type"`
	Member string   `json:"member"`
	When   []string `json:"when,omitempty"`
	span
}

type method struct {
	Method string `json:"method"`
	Side   string `json:"side"`
	span
}

type value struct {
	Type   string `json:"type"`
	Member string `json:"member,omitempty"`
	Value  string `json:"value"`
	span
}

type table struct {
	Comment string   `json:"$comment"`
	Members []member `json:"members"`
	Methods []method `json:"methods"`
	Values  []value  `json:"values"`
}

func run(releases, dir string, verbose bool) error {
	out, missing, err := generate(releases, dir)
	if err != nil {
		return err
	}
	if verbose {
		for _, m := range missing {
			fmt.Fprintf(os.Stderr, "historygen: no type of ours holds %s\n", m)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(out)) {
		if err := os.WriteFile(filepath.Join(dir, name), out[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// generate returns the history tables, by their path below dir, and the
// retired members no type of ours holds ("v1: Type.member").
func generate(releases, dir string) (map[string][]byte, []string, error) {
	b, err := os.ReadFile(releases)
	if err != nil {
		return nil, nil, err
	}
	var rf releasesFile
	if err := json.Unmarshal(b, &rf); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", releases, err)
	}
	var nt notes
	nb, err := os.ReadFile(filepath.Join(dir, "acp", "history-notes.json"))
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(nb, &nt); err != nil {
		return nil, nil, fmt.Errorf("history-notes.json: %w", err)
	}
	out := map[string][]byte{}
	var missing []string
	for _, wire := range []string{"v1", "v2"} {
		names, err := typeNames(dir, wire)
		if err != nil {
			return nil, nil, err
		}
		t, miss := build(&rf, &nt, wire, names)
		for _, m := range miss {
			missing = append(missing, wire+": "+m)
		}
		var buf bytes.Buffer
		if err := write(&buf, t); err != nil {
			return nil, nil, err
		}
		out[filepath.Join("acp", wire, "history.json")] = buf.Bytes()
	}
	return out, missing, nil
}

// typeNames maps each official type name to the places of our schemas of
// the wire version (its folder and its unstable one) that hold that type:
// a file's root by its title, a $defs entry by its key. Places are
// relative to the version's folder ("session.new.result.json",
// "common.json#/$defs/AuthMethod").
func typeNames(dir, wire string) (map[string][]string, error) {
	names := map[string][]string{}
	add := func(name, place string) {
		if !slices.Contains(names[name], place) {
			names[name] = append(names[name], place)
		}
	}
	for _, folder := range []string{wire, wire + "-unstable"} {
		files, err := filepath.Glob(filepath.Join(dir, "acp", folder, "*.json"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			base := filepath.Base(f)
			if strings.HasSuffix(base, ".bundle.json") || base == "dispatch.json" || base == "requirements.json" || base == "history.json" {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			var doc struct {
				Title string                     `json:"title"`
				Defs  map[string]json.RawMessage `json:"$defs"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if doc.Title != "" {
				add(doc.Title, base)
			}
			for k := range doc.Defs {
				add(k, base+"#/$defs/"+k)
			}
		}
	}
	return names, nil
}

// canonical is an official type name as today's schema spells the same
// place: the early releases' Arguments and Output became Request and
// Response.
func canonical(name string) string {
	for old, now := range map[string]string{"Arguments": "Request", "Output": "Response"} {
		if s, ok := strings.CutSuffix(name, old); ok {
			return s + now
		}
	}
	return name
}

// camel is a tag value as a type name's suffix: env_var → EnvVar.
func camel(v string) string {
	var sb strings.Builder
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '_' || r == '-' }) {
		sb.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return sb.String()
}

func spanOf(e entry, successor string) span {
	return span{First: e.First, FirstDate: e.FirstDate, Last: e.Last, LastDate: e.LastDate,
		Unstable: !slices.Contains(e.Schemas, "stable"), Successor: successor}
}

// widen makes s cover e too.
func widen(s *span, e entry) {
	if e.FirstDate < s.FirstDate {
		s.First, s.FirstDate = e.First, e.FirstDate
	}
	if e.LastDate > s.LastDate {
		s.Last, s.LastDate = e.Last, e.LastDate
	}
	if slices.Contains(e.Schemas, "stable") {
		s.Unstable = false
	}
}

// build makes the table of wire version wire; missing lists the retired
// members no place of ours holds.
func build(rf *releasesFile, nt *notes, wire string, names map[string][]string) (table, []string) {
	t := table{Comment: "Generated by internal/historygen from the ACP release history (the official schema at each release tag of agentclientprotocol/agent-client-protocol); do not edit. What " + wire + "'s earlier releases defined and today's schema does not: members by the place of our schemas that holds their type (when: the union tag that selects the variant that had them), methods by name, string values by their type and member. first and last are the releases that defined it; unstable: only the unstable schema did; successor: what took its place."}
	// A retired tag value of a union selects a variant whose own type
	// name is the union's with the value's.
	variants := map[string][2]string{} // variant type → union, tag member=value
	for _, e := range rf.Values {
		if e.Version == wire && !e.Current && e.Member != "" {
			variants[canonical(e.Type)+camel(e.Value)] = [2]string{canonical(e.Type), e.Member + "=" + e.Value}
		}
	}
	var missing []string
	byKey := map[string]*member{}
	for _, e := range rf.Members {
		if e.Version != wire || e.Current {
			continue
		}
		typ := canonical(e.Type)
		places, when := names[typ], []string(nil)
		if len(places) == 0 {
			if v, ok := variants[typ]; ok {
				places = names[v[0]]
				tag, val, _ := strings.Cut(v[1], "=")
				when = []string{tag, val}
			}
		}
		if len(places) == 0 {
			missing = append(missing, e.Type+"."+e.Member)
			continue
		}
		for _, p := range places {
			k := p + "\x00" + e.Member + "\x00" + strings.Join(when, "=")
			if m := byKey[k]; m != nil {
				widen(&m.span, e)
				continue
			}
			byKey[k] = &member{Type: p, Member: e.Member, When: when, span: spanOf(e, nt.Members[typ+"."+e.Member])}
		}
	}
	for _, m := range byKey {
		t.Members = append(t.Members, *m)
	}
	sort.Slice(t.Members, func(i, j int) bool {
		a, b := t.Members[i], t.Members[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Member != b.Member {
			return a.Member < b.Member
		}
		return strings.Join(a.When, "=") < strings.Join(b.When, "=")
	})
	for _, e := range rf.Methods {
		if e.Version != wire || e.Current {
			continue
		}
		side := "agent" // agentMethods: the agent handles them
		if e.Side == "clientMethods" {
			side = "client"
		}
		t.Methods = append(t.Methods, method{Method: e.Method, Side: side, span: spanOf(e, nt.Methods[e.Method])})
	}
	sort.Slice(t.Methods, func(i, j int) bool { return t.Methods[i].Method < t.Methods[j].Method })
	seen := map[string]*value{}
	var order []string
	for _, e := range rf.Values {
		if e.Version != wire || e.Current {
			continue
		}
		typ := canonical(e.Type)
		for _, p := range names[typ] {
			k := p + "\x00" + e.Member + "\x00" + e.Value
			if v := seen[k]; v != nil {
				widen(&v.span, e)
				continue
			}
			seen[k] = &value{Type: p, Member: e.Member, Value: e.Value, span: spanOf(e, nt.Values[typ+"."+e.Member+"="+e.Value])}
			order = append(order, k)
		}
	}
	sort.Strings(order)
	for _, k := range order {
		t.Values = append(t.Values, *seen[k])
	}
	if t.Members == nil {
		t.Members = []member{}
	}
	if t.Methods == nil {
		t.Methods = []method{}
	}
	if t.Values == nil {
		t.Values = []value{}
	}
	return t, missing
}

// write puts out t with one row a line: the table stays small and its
// diffs readable.
func write(buf *bytes.Buffer, t table) error {
	c, err := json.Marshal(t.Comment)
	if err != nil {
		return err
	}
	fmt.Fprintf(buf, "{\n  \"$comment\": %s,\n", c)
	section := func(name string, n int, row func(int) any, last bool) error {
		fmt.Fprintf(buf, "  %q: [", name)
		for i := 0; i < n; i++ {
			b, err := json.Marshal(row(i))
			if err != nil {
				return err
			}
			sep := ","
			if i == n-1 {
				sep = ""
			}
			fmt.Fprintf(buf, "\n    %s%s", b, sep)
		}
		if n > 0 {
			buf.WriteString("\n  ")
		}
		buf.WriteString("]")
		if !last {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
		return nil
	}
	if err := section("members", len(t.Members), func(i int) any { return t.Members[i] }, false); err != nil {
		return err
	}
	if err := section("methods", len(t.Methods), func(i int) any { return t.Methods[i] }, false); err != nil {
		return err
	}
	if err := section("values", len(t.Values), func(i int) any { return t.Values[i] }, true); err != nil {
		return err
	}
	buf.WriteString("}\n")
	return nil
}
