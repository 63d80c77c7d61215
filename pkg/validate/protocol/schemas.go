package protocol

import (
	"fmt"
	"io/fs"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/pkg/wire"
	"github.com/agentproto/agentproto/schema/compile"
)

// Schema is a schema with its $id, compiled the first time it is used: a
// run whose messages the fast path vouches for never compiles most of
// them. It is safe for concurrent use.
type Schema struct {
	ID     string
	set    *Schemas
	once   sync.Once
	s      *jsonschema.Schema
	err    error
	shapes *shapes // shared by the schemas of one Schemas, for NearMisses
	// splitOnce keeps the schema's Split, made on first use, for the
	// checks of every message that fails: they read it without a lock.
	splitOnce sync.Once
	split     *Split
	// codecOnce keeps the schema's codec for the engine's fast path (see
	// Codec).
	codecOnce sync.Once
	codec     *wire.Codec
}

// Codec returns the codec lookup gives for the schema's $id, asking once
// and keeping the answer; nil when lookup has none. A Schema belongs to one
// engine, whose lookup is always the same.
func (s *Schema) Codec(lookup func(id string) (wire.Codec, bool)) *wire.Codec {
	s.codecOnce.Do(func() {
		if c, ok := lookup(s.ID); ok {
			s.codec = &c
		}
	})
	return s.codec
}

// compiled returns the compiled schema, compiling it once.
func (s *Schema) compiled() (*jsonschema.Schema, error) {
	s.once.Do(func() { s.s, s.err = s.set.compile(s.ID) })
	return s.s, s.err
}

// Compiled returns the compiled schema, compiling it once.
func (s *Schema) Compiled() (*jsonschema.Schema, error) { return s.compiled() }

// sub returns a Schema for an already compiled part of s.
func (s *Schema) sub(part *jsonschema.Schema) *Schema {
	c := &Schema{ID: s.ID, set: s.set, s: part, shapes: s.shapes}
	c.once.Do(func() {})
	return c
}

// Valid reports whether v passes the schema, without explaining; a schema
// that does not compile accepts nothing.
func (s *Schema) Valid(v any) bool {
	if s == nil {
		return false
	}
	c, err := s.compiled()
	return err == nil && c.Validate(v) == nil
}

// Validate validates v; the error, when the value is invalid, is a
// *jsonschema.ValidationError for the explainer (or the compile error).
func (s *Schema) Validate(v any) error {
	c, err := s.compiled()
	if err != nil {
		return err
	}
	return c.Validate(v)
}

// Schemas hands out the embedded schemas by $id. It is safe for concurrent
// use; nothing is compiled until a schema is used.
type Schemas struct {
	// fsys and prefix are the schema folder and its $id prefix (nil:
	// the embedded schemas).
	fsys   fs.FS
	prefix string
	mu     sync.Mutex
	c      *jsonschema.Compiler
	err    error
	byID   map[string]*Schema
	shapes shapes
	// derived holds the documents Split made, by $id; each is handed to
	// the compiler before the next compile.
	derived map[string]any
	added   map[string]bool

	// splitMu guards what Split keeps: its results and the documents it
	// read (apart from mu, which a compile holds for long).
	splitMu sync.Mutex
	splits  map[string]*Split
	docs    map[string]map[string]any

	// types holds the shapes Defines found, by $id (nil: no such type).
	types sync.Map
}

// NewSchemas returns an empty cache of the embedded schemas.
func NewSchemas() *Schemas { return &Schemas{byID: map[string]*Schema{}} }

// NewSchemasFS returns an empty cache of the schemas of the folder fsys,
// the file at path P by the $id idPrefix + P (a registry's folder).
func NewSchemasFS(fsys fs.FS, idPrefix string) *Schemas {
	return &Schemas{fsys: fsys, prefix: idPrefix, byID: map[string]*Schema{}}
}

// newCompiler returns the compiler of the set's folder.
func (s *Schemas) newCompiler() (*jsonschema.Compiler, error) {
	if s.fsys == nil {
		return compile.New()
	}
	return compile.NewFS(s.fsys, s.prefix)
}

// document returns the schema document with $id id of the set's folder.
func (s *Schemas) document(id string) (any, error) {
	if s.fsys == nil {
		return compile.Document(id)
	}
	return compile.DocumentFS(s.fsys, s.prefix, id)
}

// Get returns the schema with $id id ("" gives nil), to be compiled when
// first used.
func (s *Schemas) Get(id string) (*Schema, error) {
	if id == "" {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.byID[id]; ok {
		return c, nil
	}
	c := &Schema{ID: id, set: s, shapes: &s.shapes}
	s.byID[id] = c
	return c, nil
}

// compile compiles the schema with $id id. The compiler is not safe for
// concurrent use, hence the lock.
func (s *Schemas) compile(id string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil && s.err == nil {
		s.c, s.err = s.newCompiler()
	}
	if s.err != nil {
		return nil, s.err
	}
	for id, doc := range s.derived {
		if s.added[id] {
			continue
		}
		if err := s.c.AddResource(id, doc); err != nil {
			return nil, fmt.Errorf("adding %s: %w", id, err)
		}
		if s.added == nil {
			s.added = map[string]bool{}
		}
		s.added[id] = true
	}
	sch, err := s.c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", id, err)
	}
	return sch, nil
}
