// Package registry is the one list of the protocol versions and dialects
// that agentproto describes, with each one's tables: which versions exist and
// in what order, which is stable and which is the default, which $id prefix
// and Go package each has, and per version the methods, message types and
// events with their schemas, the capabilities or features that gate them and
// their effects on protocol state.
//
// The data lives in schema/versions.json and in each version folder's
// dispatch.json (and ARCP's deviations.json); the validator, the schema
// publisher, the table generator and protogen's default $id maps all read it
// through this package, so adding a method, an event kind or a dialect is a
// table edit. The package imports no schema validator.
//
// # Adding a protocol
//
// A protocol is registered once per layer, each layer keeping one list and
// switching on no protocol's name:
//
//  1. Schemas and tables: a folder schema/<protocol>/<version> with the
//     schema files and a dispatch.json that opens with "protocol" and
//     "version", an entry per version in schema/versions.json, and one
//     entry in its "protocols" list: the members that mark the protocol's
//     messages, its two sides, the lanes a report draws and the tokens of
//     a direction sidecar (Registry.Protocol). The tap names a sidecar's
//     directions, the engine tells a message's side and the HTML report
//     draws its lanes from there.
//  2. The registry: a file here with the table type and the function that
//     reads a dispatch.json into it (as acp.go, arcp.go and arcan.go do),
//     and one Kind in builtinKinds. Code that needs the table reads
//     Version.Table (or an accessor such as Version.ACP).
//  3. The engine: a rules package pkg/validate/rules/<protocol> that
//     implements protocol.Rules, names its rules and documents them
//     (RuleDocs: the rows each checks, and once per rule its Severity and
//     Text, which the output formats and cmd/validate's rule table use),
//     and one entry in pkg/validate's Protocols.
//  4. The publisher: one entry in internal/publish's protocols list: how a
//     bundle reads the table's entries, how its root dispatches, and what
//     its reference page says of the version.
//
// Then go generate ./... writes the generated package, the bundle, the
// reference page and the rows of cmd/validate/README.md's rule table. A
// registry over another schema folder (Load with extra Kinds) and an engine
// given its own protocols (validate.Options) let a test check a protocol
// end to end without touching these lists; see cmd/validate's toy protocol
// test (toyprotocol_test.go).
package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/schema"
)

// A Kind is what the registry knows of one protocol: its name and how a
// version's dispatch table reads into the value Version.Table holds.
type Kind struct {
	// Protocol is the protocol's name, as versions.json and the
	// dispatch tables write it ("acp").
	Protocol string
	// Load reads the dispatch table b of version v (its "protocol" and
	// "version" already checked), with its folder in fsys. With
	// checkFiles, every schema file the table names must exist (see
	// CheckFile).
	Load func(fsys fs.FS, v *Version, b []byte, checkFiles bool) (any, error)
}

// builtinKinds is the one list of the protocols the registry reads, in the
// order a trace's protocol is tried.
func builtinKinds() []Kind {
	return []Kind{
		kindOf("acp", loadACP),
		kindOf("arcp", loadARCP),
		kindOf("arcan", loadArcan),
	}
}

// kindOf makes the Kind of a loader that returns its own table type.
func kindOf[T any](protocol string, load func(fs.FS, *Version, []byte, bool) (T, error)) Kind {
	return Kind{Protocol: protocol, Load: func(fsys fs.FS, v *Version, b []byte, check bool) (any, error) {
		return load(fsys, v, b, check)
	}}
}

// Protocols returns the protocol names of the built-in registry ("acp",
// "arcp", "arcan"), in the order a trace's protocol is tried.
func Protocols() []string { return kindNames(builtinKinds()) }

func kindNames(kinds []Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Protocol
	}
	return out
}

// Registry is the list of versions, loaded and checked. It is read-only and
// safe for concurrent use.
type Registry struct {
	idPrefix string
	fsys     fs.FS
	kinds    []Kind // the protocols, in the order tried
	versions []*Version
	facts    map[string]*Protocol // by protocol: what versions.json says of it
	// lazy, if set, loads a protocol's tables when one of its versions is
	// first asked for (Embedded): a process that reads ACP traces does
	// not decode ARCP's and Arcan's.
	lazy map[string]*lazyTables // by protocol; not written after load

	// The requirement catalogues are read when first asked for: a run
	// that reports no coverage and lists no rules does not decode them.
	reqFS   fs.FS
	reqOnce sync.Once
	reqErr  error

	hist historyCache // the history tables, read when first asked for
}

// lazyTables are the tables of one protocol's versions, loaded once.
type lazyTables struct {
	fsys fs.FS
	once sync.Once
	err  error // the tables did not load: the protocol has no versions
}

// Version is one protocol version or dialect: one folder of schemas with
// its dispatch table.
type Version struct {
	// Protocol is "acp", "arcp" or "arcan".
	Protocol string `json:"protocol"`
	// Name is what --dialect accepts and what detection prints ("v1",
	// "v1-unstable", "rust-sdk").
	Name string `json:"name"`
	// Folder is the schema folder below schema/ ("acp/v1").
	Folder string `json:"folder"`
	// Package is the import path of the Go package generated from it.
	Package string `json:"package"`
	// Title names it in a sentence ("ACP v1").
	Title string `json:"title"`
	// Stable marks a released version.
	Stable bool `json:"stable"`
	// Default marks the version a trace of the protocol is read as when
	// nothing in the trace or the options says otherwise.
	Default bool `json:"default"`
	// Dialect marks a peer's variant of the protocol rather than a version
	// of it.
	Dialect bool `json:"dialect"`
	// Extends names the version whose methods and types this one adds to
	// (v1-unstable extends v1).
	Extends string `json:"extends"`
	// WireVersion is the number a peer sends to name this version (ACP's
	// initialize protocolVersion); 0 when the protocol names versions
	// otherwise.
	WireVersion int `json:"wire_version"`
	// Note, for a dialect, says in one line how it differs.
	Note string `json:"note"`

	// Order is the version's place among its protocol's versions, from 0.
	Order int `json:"-"`

	// Table is the version's dispatch table as its protocol's Kind read
	// it: *ACPTable, *ARCPTable or *ArcanTable for the built-in
	// protocols (see the accessors ACP, ARCP and Arcan).
	Table any `json:"-"`

	// Requirements is the version's requirement catalogue (its folder's
	// requirements.json), nil if it has none. An extension lists only
	// what it adds; Registry.Requirements joins them.
	Requirements []*Requirement `json:"-"`

	idPrefix string
}

// IDPrefix is the $id prefix of the version's schemas
// ("https://agentproto.dev/schema/acp/v1/").
func (v *Version) IDPrefix() string { return v.idPrefix + v.Folder + "/" }

// SchemaID returns the $id of a file of the version's folder, with its
// fragment if ref has one ("session.new.params.json#/$defs/X"); "" for "".
func (v *Version) SchemaID(ref string) string {
	if ref == "" {
		return ""
	}
	file, frag, _ := strings.Cut(ref, "#")
	id := v.idPrefix + path.Join(v.Folder, file)
	if frag != "" {
		id += "#" + frag
	}
	return id
}

// String names the version as protocol/name ("acp/v1").
func (v *Version) String() string { return v.Protocol + "/" + v.Name }

var embedded = sync.OnceValues(func() (*Registry, error) {
	return load(schema.Files, schema.IDPrefix, true)
})

// Embedded returns the registry of the schemas embedded in package schema,
// loaded once. A protocol's tables are read when one of its versions is
// first asked for; they are the tables Load checks in this package's tests,
// so they do not fail (if they did, the protocol would have no versions,
// and Err would say why), and the schema files they name are not looked
// up again.
func Embedded() (*Registry, error) { return embedded() }

// Err reports the tables of a protocol that could not be loaded when first
// asked for (only a registry from Embedded loads tables that late).
func (r *Registry) Err() error {
	for _, p := range r.Protocols() {
		if lt := r.lazy[p]; lt != nil {
			r.ready(p)
			if lt.err != nil {
				return lt.err
			}
		}
	}
	return nil
}

// Load reads versions.json and every version's tables from fsys (a schema
// folder), with idPrefix the prefix of every $id, and checks them. The
// protocols are the built-in ones and then extra, tried in that order.
func Load(fsys fs.FS, idPrefix string, extra ...Kind) (*Registry, error) {
	return load(fsys, idPrefix, false, extra...)
}

func load(fsys fs.FS, idPrefix string, lazy bool, extra ...Kind) (*Registry, error) {
	b, err := fs.ReadFile(fsys, schema.VersionsFile)
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	var doc struct {
		Comment   string      `json:"$comment"`
		Protocols []*Protocol `json:"protocols"`
		Versions  []*Version  `json:"versions"`
	}
	if err := StrictUnmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("registry: %s: %w", schema.VersionsFile, err)
	}
	r := &Registry{idPrefix: idPrefix, fsys: fsys, kinds: append(builtinKinds(), extra...)}
	for i, k := range r.kinds {
		if k.Protocol == "" || k.Load == nil || slices.Contains(kindNames(r.kinds[:i]), k.Protocol) {
			return nil, fmt.Errorf("registry: kind %d (%q) needs a name of its own and a Load", i, k.Protocol)
		}
	}
	if err := r.checkProtocols(doc.Protocols); err != nil {
		return nil, fmt.Errorf("registry: %s: %w", schema.VersionsFile, err)
	}
	seen := map[string]bool{}
	defaults := map[string]int{}
	order := map[string]int{}
	for i, v := range doc.Versions {
		where := fmt.Sprintf("%s: versions[%d]", schema.VersionsFile, i)
		if r.kind(v.Protocol) == nil {
			return nil, fmt.Errorf("registry: %s: protocol %q is none of %s", where, v.Protocol, strings.Join(r.Protocols(), ", "))
		}
		if v.Name == "" || v.Folder == "" || v.Package == "" || v.Title == "" {
			return nil, fmt.Errorf("registry: %s: name, folder, package and title are required", where)
		}
		if seen[v.Protocol+"/"+v.Name] {
			return nil, fmt.Errorf("registry: %s: %s/%s is listed twice", where, v.Protocol, v.Name)
		}
		seen[v.Protocol+"/"+v.Name] = true
		if v.Default {
			defaults[v.Protocol]++
		}
		v.Order = order[v.Protocol]
		order[v.Protocol]++
		v.idPrefix = idPrefix
		r.versions = append(r.versions, v)
		if lazy {
			if r.lazy == nil {
				r.lazy = map[string]*lazyTables{}
			}
			if r.lazy[v.Protocol] == nil {
				r.lazy[v.Protocol] = &lazyTables{fsys: fsys}
			}
			continue
		}
		if err := r.loadTables(fsys, v, true); err != nil {
			return nil, fmt.Errorf("registry: %s: %w", v.Folder, err)
		}
	}
	r.reqFS = fsys
	if !lazy {
		if err := r.loadCatalogues(); err != nil {
			return nil, err
		}
	}
	for _, v := range r.versions {
		if v.Extends != "" && !slices.ContainsFunc(r.versions, func(w *Version) bool { return w.Protocol == v.Protocol && w.Name == v.Extends }) {
			return nil, fmt.Errorf("registry: %s extends %q, which is not a version of %s", v, v.Extends, v.Protocol)
		}
	}
	for _, p := range r.Protocols() {
		if order[p] > 0 && defaults[p] != 1 {
			return nil, fmt.Errorf("registry: %s has %d default versions; want exactly one", p, defaults[p])
		}
	}
	return r, nil
}

// Protocols returns the names of the registry's protocols, in the order a
// trace's protocol is tried.
func (r *Registry) Protocols() []string { return kindNames(r.kinds) }

// kind returns the Kind of protocol, or nil.
func (r *Registry) kind(protocol string) *Kind {
	for i := range r.kinds {
		if r.kinds[i].Protocol == protocol {
			return &r.kinds[i]
		}
	}
	return nil
}

// FS returns the schema folder the registry was read from.
func (r *Registry) FS() fs.FS { return r.fsys }

// loadTables reads the dispatch table (and ARCP's deviations) of v. With
// checkFiles, every schema file a table names must exist (Load checks;
// the embedded tables are the ones this package's tests load that way).
func (r *Registry) loadTables(fsys fs.FS, v *Version, checkFiles bool) error {
	b, err := fs.ReadFile(fsys, path.Join(v.Folder, schema.DispatchTable))
	if err != nil {
		return err
	}
	protocol, version, err := readHead(b)
	if err != nil {
		return fmt.Errorf("%s: %w", schema.DispatchTable, err)
	}
	if protocol != v.Protocol && !strings.HasPrefix(protocol, v.Protocol+"-") || version != path.Base(v.Folder) {
		return fmt.Errorf("%s says protocol %q version %q; %s expects protocol %s, version %s (the folder's name)", schema.DispatchTable, protocol, version, schema.VersionsFile, v.Protocol, path.Base(v.Folder))
	}
	v.Table, err = r.kind(v.Protocol).Load(fsys, v, b, checkFiles)
	return err
}

// readHead reads the "protocol" and "version" members of a dispatch
// table, which open it, without reading the rest (the table's own decode
// reads all of it, strictly).
func readHead(b []byte) (protocol, version string, err error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil {
		return "", "", err
	} else if tok != json.Delim('{') {
		return "", "", fmt.Errorf("not a JSON object")
	}
	var seen int
	for seen < 2 && dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", "", err
		}
		switch tok {
		case "protocol":
			err = dec.Decode(&protocol)
			seen++
		case "version":
			err = dec.Decode(&version)
			seen++
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return "", "", err
		}
	}
	return protocol, version, nil
}

// CheckFile reports a table's reference ref (a file of v's folder, with
// or without a fragment) to a schema file that does not exist, when check
// is set; what names the reference in the error.
func CheckFile(check bool, fsys fs.FS, v *Version, what, ref string) error {
	if ref == "" || !check {
		return nil
	}
	file, _, _ := strings.Cut(ref, "#")
	if _, err := fs.Stat(fsys, path.Join(v.Folder, file)); err != nil {
		return fmt.Errorf("%s names %s, which is not in the folder", what, file)
	}
	return nil
}

// StrictUnmarshal decodes JSON (a table) and refuses members the target
// does not have, so that a misspelt table key is an error rather than a
// rule that silently never applies.
func StrictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// ready loads the tables of protocol ("" for all) if they are not yet.
func (r *Registry) ready(protocol string) {
	for p, lt := range r.lazy {
		if protocol != "" && p != protocol {
			continue
		}
		lt.once.Do(func() {
			for _, v := range r.versions {
				if v.Protocol != p {
					continue
				}
				if err := r.loadTables(lt.fsys, v, false); err != nil {
					lt.err = fmt.Errorf("registry: %s: %w", v.Folder, err)
					return
				}
			}
		})
	}
}

// all returns the versions of protocol ("" for all) whose tables are
// loaded, loading them first if need be.
func (r *Registry) all(protocol string) []*Version {
	if r.lazy == nil {
		return r.versions
	}
	r.ready(protocol)
	out := make([]*Version, 0, len(r.versions))
	for _, v := range r.versions {
		if (protocol == "" || v.Protocol == protocol) && r.lazy[v.Protocol].err == nil {
			out = append(out, v)
		}
	}
	return out
}

// Versions returns the versions of protocol ("" for all), oldest first.
func (r *Registry) Versions(protocol string) []*Version {
	var out []*Version
	for _, v := range r.all(protocol) {
		if protocol == "" || v.Protocol == protocol {
			out = append(out, v)
		}
	}
	return out
}

// Lookup returns the version of protocol named name, or nil.
func (r *Registry) Lookup(protocol, name string) *Version {
	for _, v := range r.all(protocol) {
		if v.Protocol == protocol && v.Name == name {
			return v
		}
	}
	return nil
}

// Default returns the default version of protocol, or nil.
func (r *Registry) Default(protocol string) *Version {
	for _, v := range r.all(protocol) {
		if v.Protocol == protocol && v.Default {
			return v
		}
	}
	return nil
}

// ByWireVersion returns the non-dialect version of protocol that peers name
// with n on the wire, preferring a stable one, or nil.
func (r *Registry) ByWireVersion(protocol string, n int) *Version {
	var found *Version
	for _, v := range r.all(protocol) {
		if v.Protocol != protocol || v.Dialect || v.WireVersion != n || n == 0 {
			continue
		}
		if found == nil || v.Stable && !found.Stable {
			found = v
		}
	}
	return found
}

// ForID returns the version whose folder holds the schema with $id id, or
// nil.
func (r *Registry) ForID(id string) *Version {
	for _, v := range r.all("") {
		if strings.HasPrefix(id, v.IDPrefix()) {
			return v
		}
	}
	return nil
}

// Extensions returns the versions that extend v (v1-unstable for v1).
func (r *Registry) Extensions(v *Version) []*Version {
	var out []*Version
	for _, w := range r.all(v.Protocol) {
		if w.Protocol == v.Protocol && w.Extends == v.Name {
			out = append(out, w)
		}
	}
	return out
}

// DialectNames returns every name --dialect accepts for protocol ("" for
// all): the versions' names and the SDK dialects read with a version's
// schemas (ARCP's canonical, go-sdk, …), without repeats, in registry order.
func (r *Registry) DialectNames(protocol string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, v := range r.Versions(protocol) {
		add(v.Name)
		for _, d := range v.Dialects() {
			add(d)
		}
	}
	return out
}

// IDPrefix returns the prefix of every $id of the registry's schemas.
func (r *Registry) IDPrefix() string { return r.idPrefix }

// Dialects lists the SDK dialects read with the version's schemas, if its
// table has any (ARCP's canonical, go-sdk, …): a table that has them has a
// method Dialects() []string.
func (v *Version) Dialects() []string {
	if t, ok := v.Table.(interface{ Dialects() []string }); ok {
		return t.Dialects()
	}
	return nil
}
