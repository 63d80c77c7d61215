package protocol

import (
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/schema/compile"
)

// Schema is a compiled schema with its $id. It is immutable and safe for
// concurrent validation.
type Schema struct {
	ID     string
	s      *jsonschema.Schema
	shapes *shapes // shared by the schemas of one Schemas, for NearMisses
}

// Valid reports whether v passes the schema, without explaining.
func (s *Schema) Valid(v any) bool { return s != nil && s.s.Validate(v) == nil }

// Validate validates v; the error, when the value is invalid, is a
// *jsonschema.ValidationError for the explainer.
func (s *Schema) Validate(v any) error { return s.s.Validate(v) }

// Schemas compiles the embedded schemas by $id, each once, when first
// asked for. It is safe for concurrent use.
type Schemas struct {
	mu     sync.Mutex
	c      *jsonschema.Compiler
	err    error
	byID   map[string]*Schema
	shapes shapes
}

// NewSchemas returns an empty cache; nothing is compiled until Get.
func NewSchemas() *Schemas { return &Schemas{byID: map[string]*Schema{}} }

// Get compiles (once) and returns the schema with $id id; "" gives nil.
func (s *Schemas) Get(id string) (*Schema, error) {
	if id == "" {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.byID[id]; ok {
		return c, nil
	}
	if s.c == nil && s.err == nil {
		s.c, s.err = compile.New()
	}
	if s.err != nil {
		return nil, s.err
	}
	sch, err := s.c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", id, err)
	}
	c := &Schema{ID: id, s: sch, shapes: &s.shapes}
	s.byID[id] = c
	return c, nil
}
