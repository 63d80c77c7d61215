package validate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/schema"
)

// table is one protocol version's dispatch table (schema/README.md,
// "Dispatch tables"), with its schemas compiled.
type table struct {
	Protocol string `json:"protocol"`
	Version  string `json:"version"`
	dir      string // folder below schema/, e.g. "acp/v1"

	// ACP
	Methods  []*methodEntry `json:"methods"`
	Envelope string         `json:"envelope"`
	// Records are lines of an ACP dialect that are not JSON-RPC (VT Code's
	// streamed updates), recognised by the keys they all carry.
	Records []*recordEntry `json:"records"`
	// ARCP
	Messages []*typeEntry `json:"messages"`
	// ARCP (kind) and Arcan (part_type)
	Events []*typeEntry `json:"events"`
	// Arcan
	StoreRecord string `json:"store_record"`

	methods    map[string]*methodEntry
	messages   map[string]*typeEntry
	events     map[string]*typeEntry
	store      *compiled
	compiled   bool
	compileErr error
}

type methodEntry struct {
	Method     string `json:"method"`
	Kind       string `json:"kind"`    // "request" or "notification"
	Handler    string `json:"handler"` // "agent", "client" or "both"
	Params     string `json:"params"`
	Result     string `json:"result"`
	Capability string `json:"capability"`

	params, result *compiled
}

type recordEntry struct {
	Record  string   `json:"record"`
	Handler string   `json:"handler"`
	Keys    []string `json:"keys"`
	Schema  string   `json:"schema"`

	schema *compiled
}

// matches reports whether o carries every key of the record.
func (r *recordEntry) matches(o map[string]any) bool {
	if len(r.Keys) == 0 {
		return false
	}
	for _, k := range r.Keys {
		if _, ok := o[k]; !ok {
			return false
		}
	}
	return true
}

type typeEntry struct {
	Type     string `json:"type"`
	Kind     string `json:"kind"`
	PartType string `json:"part_type"`
	Schema   string `json:"schema"`
	// Optional extras a table may carry for ARCP.
	Feature   string `json:"feature"`
	Direction string `json:"direction"`

	schema *compiled
}

func (t *typeEntry) key() string {
	switch {
	case t.Type != "":
		return t.Type
	case t.Kind != "":
		return t.Kind
	}
	return t.PartType
}

// compiled is a schema ready to validate, with its $id.
// (Compiled schemas are immutable and safe for concurrent validation.)
type compiled struct {
	id     string
	schema *jsonschema.Schema
}

// schemaSet compiles schemas by $id, once each. It is not safe for
// concurrent use: the engine's lock guards it.
type schemaSet struct {
	c    *jsonschema.Compiler
	byID map[string]*compiled
}

func (s *schemaSet) get(dir, ref string) (*compiled, error) {
	if ref == "" {
		return nil, nil
	}
	file, frag, _ := strings.Cut(ref, "#")
	id := schema.IDPrefix + path.Join(dir, file)
	if frag != "" {
		id += "#" + frag
	}
	if c, ok := s.byID[id]; ok {
		return c, nil
	}
	sch, err := s.c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", id, err)
	}
	c := &compiled{id: id, schema: sch}
	s.byID[id] = c
	return c, nil
}

// loadTables reads every dispatch table in files. Schemas are compiled
// later, table by table, when a trace needs them.
func loadTables(files fs.FS) (map[string]*table, error) {
	var paths []string
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && path.Base(p) == schema.DispatchTable {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing dispatch tables: %w", err)
	}
	sort.Strings(paths)
	out := map[string]*table{}
	for _, p := range paths {
		b, err := fs.ReadFile(files, p)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		t := &table{dir: path.Dir(p)}
		if err := json.Unmarshal(b, t); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out[t.dir] = t
	}
	return out, nil
}

// compile compiles the schemas the table names (once; later calls return
// the first result). The caller holds the engine's lock.
func (t *table) compile(set *schemaSet) error {
	if t.compiled {
		return t.compileErr
	}
	t.compiled = true
	t.compileErr = t.doCompile(set)
	return t.compileErr
}

func (t *table) doCompile(set *schemaSet) error {
	var err error
	t.methods = map[string]*methodEntry{}
	for _, m := range t.Methods {
		if m.params, err = set.get(t.dir, m.Params); err != nil {
			return fmt.Errorf("method %s: %w", m.Method, err)
		}
		if m.result, err = set.get(t.dir, m.Result); err != nil {
			return fmt.Errorf("method %s: %w", m.Method, err)
		}
		t.methods[m.Method] = m
	}
	t.messages = map[string]*typeEntry{}
	for _, m := range t.Messages {
		if m.schema, err = set.get(t.dir, m.Schema); err != nil {
			return fmt.Errorf("message %s: %w", m.key(), err)
		}
		t.messages[m.key()] = m
	}
	t.events = map[string]*typeEntry{}
	for _, e := range t.Events {
		if e.schema, err = set.get(t.dir, e.Schema); err != nil {
			return fmt.Errorf("event %s: %w", e.key(), err)
		}
		t.events[e.key()] = e
	}
	for _, r := range t.Records {
		if r.schema, err = set.get(t.dir, r.Schema); err != nil {
			return fmt.Errorf("record %s: %w", r.Record, err)
		}
	}
	if t.store, err = set.get(t.dir, t.StoreRecord); err != nil {
		return fmt.Errorf("store record: %w", err)
	}
	return nil
}

// titles maps each schema file's $id to its root title, and to its
// document, for messages.
func titles(files fs.FS) (map[string]string, map[string]any) {
	out := map[string]string{}
	docs := map[string]any{}
	paths, err := schema.Paths(".")
	if err != nil {
		return out, docs
	}
	for _, p := range paths {
		b, err := fs.ReadFile(files, p)
		if err != nil {
			continue
		}
		var doc map[string]any
		if json.Unmarshal(b, &doc) != nil {
			continue
		}
		id, _ := doc["$id"].(string)
		if id == "" {
			id = schema.IDPrefix + p
		}
		docs[id] = doc
		if t, _ := doc["title"].(string); t != "" {
			out[id] = t
		}
	}
	return out, docs
}
