package publish

import (
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
	"github.com/agentproto/agentproto/schema/registry"
)

// IDPrefix is the prefix of every $id: the file at path P below the schema
// folder has the $id IDPrefix + P.
const IDPrefix = "https://agentproto.dev/schema/"

const draft202012 = "https://json-schema.org/draft/2020-12/schema"

// Version is one protocol version (or dialect) folder that has a dispatch
// table, such as acp/v1 or arcp/rfc0001.
type Version struct {
	Protocol string // the protocol's name in the registry
	Name     string // the folder name: "v1", "v1.1", "rfc0001"
}

// Dir is the folder of the version below the schema folder.
func (v Version) Dir() string { return v.Protocol + "/" + v.Name }

// BundleFile is the path of the version's bundle below the schema folder:
// <protocol>.bundle.json for a numbered version (v1, v1.1), and
// <protocol>-<name>.bundle.json for a dialect folder (rfc0001), so that
// downloaded bundles of two schema sets of one protocol keep apart.
func (v Version) BundleFile() string {
	base := v.Protocol
	if !numberedVersion.MatchString(v.Name) {
		base += "-" + v.Name
	}
	return v.Dir() + "/" + base + ".bundle.json"
}

// PageFile is the path of the version's reference page below the docs
// folder: <protocol>-<name>.md.
func (v Version) PageFile() string { return v.Protocol + "-" + v.Name + ".md" }

// ID is the $id of the version's bundle.
func (v Version) ID() string { return IDPrefix + v.BundleFile() }

var numberedVersion = regexp.MustCompile(`^v[0-9]+(\.[0-9]+)*$`)

// FindVersions lists the version folders of fsys (the schema folder) as its
// registry (versions.json, read by package registry) lists them: grouped by
// protocol in name order, and within a protocol in the registry's order of
// versions.
func FindVersions(fsys fs.FS) ([]Version, error) {
	reg, err := registry.Load(fsys, IDPrefix)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	var out []Version
	for _, p := range slices.Sorted(slices.Values(registry.Protocols())) {
		for _, v := range reg.Versions(p) {
			out = append(out, Version{Protocol: v.Protocol, Name: path.Base(v.Folder)})
		}
	}
	return out, nil
}

// Bundle is the single-file schema of one protocol version, with what the
// docs need to know about it.
type Bundle struct {
	Version
	// Discriminator is the member the root dispatches on: method, type or
	// part_type.
	Discriminator string
	// Messages lists the dispatched messages in the order of the dispatch
	// table; for ARCP, Events lists the job.event kinds.
	Messages []Message
	Events   []Message
	// Doc is the bundle document.
	Doc *Object
	// Origin maps a definition name to where it comes from.
	Origin map[string]Origin
}

// Origin is the source of a bundle definition.
type Origin struct {
	File string // path below the schema folder
	Def  string // the $defs key in that file, "" for the file's root
}

// Message is one entry of a dispatch table.
type Message struct {
	Tag  string // the discriminator value; "" for Arcan's store record
	Kind string // ACP: "request", "notification" or "record" (not JSON-RPC); Arcan: "record" for the store record
	// Handler is the side that handles an ACP method: agent, client or both.
	Handler string
	// Shared is set on an ACP method that the table lists both as a request
	// and as a notification.
	Shared bool
	Parts  []Part
}

// Part is one schema of a message: ACP's params and result, or the whole
// message for ARCP and Arcan.
type Part struct {
	Role   string // "params", "result" or ""
	Def    string // the definition name in the bundle
	Source string // the source file below the schema folder
}

// Defs returns the bundle's definitions.
func (b *Bundle) Defs() *Object { return b.Doc.Obj("$defs") }

// Encode returns the bundle file's bytes: the published form of Doc (see
// published).
func (b *Bundle) Encode() ([]byte, error) {
	doc, err := b.published()
	if err != nil {
		return nil, err
	}
	data, err := encodeJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("publish: encoding %s: %w", b.BundleFile(), err)
	}
	return data, nil
}

// files reads and caches the schema files of a schema folder.
type files struct {
	fsys fs.FS
	docs map[string]*Object
}

func newFiles(fsys fs.FS) *files { return &files{fsys: fsys, docs: map[string]*Object{}} }

func (f *files) load(p string) (*Object, error) {
	if d, ok := f.docs[p]; ok {
		return d, nil
	}
	data, err := fs.ReadFile(f.fsys, p)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	v, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("publish: %s: %w", p, err)
	}
	d, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("publish: %s: not a JSON object", p)
	}
	f.docs[p] = d
	return d, nil
}

// loadSchema reads a schema file and checks its $id and draft.
func (f *files) loadSchema(p string) (*Object, error) {
	d, err := f.load(p)
	if err != nil {
		return nil, err
	}
	if id := d.Str("$id"); id != IDPrefix+p {
		return nil, fmt.Errorf("publish: %s: $id is %q, want %q", p, id, IDPrefix+p)
	}
	if s := d.Str("$schema"); s != draft202012 {
		return nil, fmt.Errorf("publish: %s: $schema is %q, want %q", p, s, draft202012)
	}
	return d, nil
}

// Build builds the bundle of version v from the schema folder fsys.
func Build(fsys fs.FS, v Version) (*Bundle, error) {
	bd := &bundler{
		v: v, fl: newFiles(fsys), b: &Bundle{Version: v, Origin: map[string]Origin{}},
		rootName: map[string]string{}, taken: map[string]bool{}, defName: map[string]map[string]string{},
	}
	envFile, err := bd.readDispatch()
	if err != nil {
		return nil, err
	}
	order, err := bd.order()
	if err != nil {
		return nil, err
	}
	for _, file := range order {
		if err := bd.nameFile(file); err != nil {
			return nil, err
		}
	}
	out, err := bd.rewrite()
	if err != nil {
		return nil, err
	}
	bd.nameParts()
	b := bd.b
	doc := obj("$schema", draft202012, "$id", v.ID())
	b.Doc = doc
	if err := b.dispatch(out, bd.defName[envFile][""]); err != nil {
		return nil, err
	}
	doc.Set("$defs", out)
	return b, nil
}

// bundler is a bundle being built: its files, and the definition names
// they get.
type bundler struct {
	v  Version
	fl *files
	b  *Bundle
	// roots are the dispatched files, in table order, with the names of
	// their roots in rootName; rootRef holds the files that are
	// referenced as a whole.
	roots    []string
	rootName map[string]string
	rootRef  map[string]bool
	// taken holds the definition names given; defName, by file, the name
	// of each $defs key ("" for the root); defs, the definitions in
	// bundle order.
	taken   map[string]bool
	defName map[string]map[string]string
	defs    []pendingDef
}

// pendingDef is a definition of the bundle, before its $refs point
// inside the bundle.
type pendingDef struct {
	name   string
	file   string
	def    string
	schema *Object
}

// readDispatch reads the version's dispatch table into the bundle's
// messages and the dispatched files, and returns the envelope's file.
func (bd *bundler) readDispatch() (envFile string, err error) {
	v := bd.v
	table, err := bd.fl.load(v.Dir() + "/dispatch.json")
	if err != nil {
		return "", err
	}
	p, ok := lookupProtocol(v.Protocol)
	if !ok {
		return "", fmt.Errorf("publish: %s: unknown protocol %q", v.Dir(), v.Protocol)
	}
	bd.b.Discriminator = p.discriminator
	envFile, err = p.entries(bd.b, table, bd.addRoot, bd.src)
	if err != nil {
		return "", err
	}
	if len(bd.roots) == 0 {
		return "", fmt.Errorf("publish: %s/dispatch.json lists no schema", v.Dir())
	}
	return envFile, nil
}

// src is the path of a file the dispatch table names.
func (bd *bundler) src(file string) string { return path.Join(bd.v.Dir(), file) }

// addRoot adds a dispatched file, whose root is named name.
func (bd *bundler) addRoot(file, name string) error {
	file = bd.src(file)
	prev, ok := bd.rootName[file]
	if ok && prev != name {
		return fmt.Errorf("publish: %s: dispatched as both %s and %s", file, prev, name)
	}
	if !ok {
		bd.roots = append(bd.roots, file)
		bd.rootName[file] = name
	}
	return nil
}

// order returns every file reachable from the dispatched ones: those
// first, then the others in path order, the version's own folder first.
func (bd *bundler) order() ([]string, error) {
	others, rootRef, err := bd.fl.reachable(bd.roots)
	if err != nil {
		return nil, err
	}
	bd.rootRef = rootRef
	dir := bd.v.Dir()
	slices.SortFunc(others, func(a, b string) int {
		ina, inb := path.Dir(a) == dir, path.Dir(b) == dir
		if ina != inb {
			if ina {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return append(slices.Clone(bd.roots), others...), nil
}

// nameFile names the definitions of one file: its root (where it
// validates something or is referenced), then its $defs, first come
// first served (see claim).
func (bd *bundler) nameFile(file string) error {
	doc := bd.fl.docs[file]
	bd.defName[file] = map[string]string{}
	if bd.rootName[file] != "" || bd.rootRef[file] || hasAssertions(doc) || slices.Contains(bd.roots, file) {
		want := bd.rootName[file]
		if want == "" {
			want = doc.Str("x-go-name")
		}
		if want == "" {
			want = doc.Str("title")
		}
		if want == "" {
			want = pascal(strings.TrimSuffix(path.Base(file), ".json"))
		}
		if bd.rootName[file] != "" && bd.taken[want] {
			return fmt.Errorf("publish: %s: the definition name %s is taken twice", file, want)
		}
		name := bd.claim(want, file)
		bd.defName[file][""] = name
		root := clone(doc).(*Object)
		for _, k := range []string{"$schema", "$id", "$defs"} {
			root.Delete(k)
		}
		bd.defs = append(bd.defs, pendingDef{name, file, "", root})
	}
	d := doc.Obj("$defs")
	if d == nil {
		return nil
	}
	for _, k := range d.Keys() {
		s, ok := d.Value(k).(*Object)
		if !ok {
			return fmt.Errorf("publish: %s#/$defs/%s: not a schema object", file, k)
		}
		name := bd.claim(k, file)
		bd.defName[file][k] = name
		bd.defs = append(bd.defs, pendingDef{name, file, k, clone(s).(*Object)})
	}
	return nil
}

// claim takes a definition name for want, of file: want itself when it
// is free, else with the PascalCase file stem as a prefix (preceded by the
// folder name for a file of another folder), then a number.
func (bd *bundler) claim(want, file string) string {
	prefix := pascal(strings.TrimSuffix(path.Base(file), ".json"))
	if d := path.Dir(file); d != bd.v.Dir() {
		prefix = pascal(path.Base(d)) + prefix
	}
	name := want
	if bd.taken[name] {
		name = prefix + want
	}
	for i := 2; bd.taken[name]; i++ {
		name = fmt.Sprintf("%s%s%d", prefix, want, i)
	}
	bd.taken[name] = true
	return name
}

// rewrite makes every $ref of the definitions point inside the bundle
// and returns them, by name, as the bundle's $defs.
func (bd *bundler) rewrite() (*Object, error) {
	out := newObject()
	for _, p := range bd.defs {
		if err := walkSchema(p.schema, "", func(s *Object, ptr string) error { return bd.rewriteRef(p, s, ptr) }); err != nil {
			return nil, err
		}
		// x-go-name only steers agentproto's Go generator: the bundle keeps
		// to standard keywords, so strict validators load it as it is.
		_ = walkSchema(p.schema, "", func(s *Object, _ string) error {
			s.Delete("x-go-name")
			return nil
		})
		out.Set(p.name, p.schema)
		bd.b.Origin[p.name] = Origin{File: p.file, Def: p.def}
	}
	return out, nil
}

// rewriteRef makes the $ref of s, at ptr in the definition p, point
// inside the bundle.
func (bd *bundler) rewriteRef(p pendingDef, s *Object, ptr string) error {
	rs, ok := s.Value("$ref").(string)
	if !ok {
		return nil
	}
	target, frag, err := resolveRef(p.file, rs)
	if err != nil {
		return err
	}
	toks := splitPointer(frag)
	name := bd.defName[target][""]
	if len(toks) >= 2 && toks[0] == "$defs" {
		name = bd.defName[target][toks[1]]
		toks = toks[2:]
	}
	if name == "" {
		return fmt.Errorf("publish: %s#%s: $ref %q points at nothing in the bundle", p.file, ptr, rs)
	}
	s.Set("$ref", refTo(name, toks...))
	return nil
}

// nameParts gives each message and event part the name of its file's
// root definition.
func (bd *bundler) nameParts() {
	b := bd.b
	for i := range b.Messages {
		for j := range b.Messages[i].Parts {
			pt := &b.Messages[i].Parts[j]
			pt.Def = bd.defName[pt.Source][""]
		}
	}
	for i := range b.Events {
		b.Events[i].Parts[0].Def = bd.defName[b.Events[i].Parts[0].Source][""]
	}
}

// MethodDef is the bundle definition name of an ACP method's params or
// result: the method name in PascalCase (a leading "$/" dropped, each word
// between "/", "_" and "." capitalised) followed by Params or Result:
// session/prompt → SessionPromptParams and SessionPromptResult,
// fs/read_text_file → FsReadTextFileParams, $/cancel_request →
// CancelRequestParams.
func MethodDef(method, role string) string {
	suffix := "Params"
	if role == "result" {
		suffix = "Result"
	}
	return pascal(strings.TrimPrefix(method, "$/")) + suffix
}

// pascal turns a name with separators into PascalCase.
func pascal(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		r, n := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[n:])
	}
	return b.String()
}

// hasAssertions reports whether a file's root does more than hold $defs.
func hasAssertions(doc *Object) bool {
	for _, k := range doc.Keys() {
		switch k {
		case "$schema", "$id", "$defs", "$comment", "title", "description", "x-go-name", "examples":
		default:
			return true
		}
	}
	return false
}

// resolveRef resolves a $ref of the file at path file to the path of the
// target file and a JSON pointer into it.
func resolveRef(file, ref string) (string, string, error) {
	base, err := url.Parse(IDPrefix + file)
	if err != nil {
		return "", "", fmt.Errorf("publish: %s: %w", file, err)
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", "", fmt.Errorf("$ref %q: %w", ref, err)
	}
	abs := base.ResolveReference(r)
	frag := abs.Fragment
	if !jsonpointer.Valid(frag) {
		return "", "", fmt.Errorf("$ref %q: only JSON pointer fragments are supported", ref)
	}
	abs.Fragment, abs.RawFragment = "", ""
	target, ok := strings.CutPrefix(abs.String(), IDPrefix)
	if !ok || !strings.HasSuffix(target, ".json") {
		return "", "", fmt.Errorf("$ref %q leads outside the agentproto schemas (%s)", ref, abs)
	}
	return target, frag, nil
}

// splitPointer splits a JSON pointer resolveRef has checked.
func splitPointer(p string) []string {
	toks, _ := jsonpointer.Split(p)
	return toks
}

// refTo returns the bundle-internal $ref of a definition, with optional
// further pointer tokens.
func refTo(def string, toks ...string) string {
	p := "/$defs/" + jsonpointer.Escape(def)
	for _, t := range toks {
		p += "/" + jsonpointer.Escape(t)
	}
	u := url.URL{Fragment: p}
	return u.String()
}

// Keywords whose value is a schema, a map of schemas or a list of schemas.
var (
	schemaKeywords    = []string{"additionalProperties", "unevaluatedProperties", "unevaluatedItems", "items", "contains", "propertyNames", "not", "if", "then", "else", "contentSchema"}
	schemaMapKeywords = []string{"$defs", "properties", "patternProperties", "dependentSchemas"}
	schemaArrKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

// walkSchema calls fn for every object schema of s (s itself and every
// subschema, never the inside of examples, const, enum or default), with
// its JSON pointer below ptr.
func walkSchema(s *Object, ptr string, fn func(*Object, string) error) error {
	if err := fn(s, ptr); err != nil {
		return err
	}
	for _, k := range s.Keys() {
		v := s.Value(k)
		at := ptr + "/" + jsonpointer.Escape(k)
		switch {
		case slices.Contains(schemaKeywords, k):
			if o, ok := v.(*Object); ok {
				if err := walkSchema(o, at, fn); err != nil {
					return err
				}
			}
		case slices.Contains(schemaMapKeywords, k):
			if m, ok := v.(*Object); ok {
				for _, name := range m.Keys() {
					if o, ok := m.Value(name).(*Object); ok {
						if err := walkSchema(o, at+"/"+jsonpointer.Escape(name), fn); err != nil {
							return err
						}
					}
				}
			}
		case slices.Contains(schemaArrKeywords, k):
			if a, ok := v.([]any); ok {
				for i, x := range a {
					if o, ok := x.(*Object); ok {
						if err := walkSchema(o, fmt.Sprintf("%s/%d", at, i), fn); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// reachable lists the schema files the roots refer to, directly or not,
// that are not roots themselves (in the order first met), and the files
// whose root (not one of their $defs) is the target of a $ref.
func (fl *files) reachable(roots []string) (others []string, rootRef map[string]bool, err error) {
	reach := map[string]bool{}
	rootRef = map[string]bool{} // files whose root is the target of a $ref
	queue := slices.Clone(roots)
	for _, r := range roots {
		reach[r] = true
	}
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		doc, err := fl.loadSchema(file)
		if err != nil {
			return nil, nil, err
		}
		err = walkSchema(doc, "", func(s *Object, ptr string) error {
			if ptr != "" && s.Has("$id") {
				return fmt.Errorf("publish: %s#%s: nested $id is not supported", file, ptr)
			}
			for _, kw := range []string{"$anchor", "$dynamicRef", "$dynamicAnchor"} {
				if s.Has(kw) {
					return fmt.Errorf("publish: %s#%s: %s is not supported", file, ptr, kw)
				}
			}
			ref, ok := s.Get("$ref")
			if !ok {
				return nil
			}
			rs, _ := ref.(string)
			target, frag, err := resolveRef(file, rs)
			if err != nil {
				return fmt.Errorf("publish: %s#%s: %w", file, ptr, err)
			}
			if toks := splitPointer(frag); len(toks) < 2 || toks[0] != "$defs" {
				rootRef[target] = true
			}
			if !reach[target] {
				reach[target] = true
				others = append(others, target)
				queue = append(queue, target)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return others, rootRef, nil
}
