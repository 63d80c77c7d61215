package load

import (
	"errors"
	"fmt"
)

// Graph is a set of loaded schemas in which every $ref has been followed:
// each schema with a $ref has its Target. It is what package model builds
// from, so modelling never reads a file or resolves a reference.
type Graph struct {
	inputs   []*Doc
	warnings []error
}

// Warnings returns the $refs that could not be resolved, each modelled as
// any JSON value.
func (g *Graph) Warnings() []error { return g.warnings }

// Inputs returns the documents the user named, in the order they were added.
func (g *Graph) Inputs() []*Doc { return g.inputs }

// Graph resolves every $ref of every loaded document, loading the documents
// they name (which are resolved in turn), and returns the resolved graph.
// A reference that names nothing found is a warning and its target any
// JSON value, as a schema true; one the loader refuses to follow (see
// Loader) is the error, located at its $ref.
func (l *Loader) Graph() (*Graph, error) {
	// l.order grows while references load further documents.
	for i := 0; i < len(l.order); i++ {
		if err := l.resolveTree(l.order[i].Root); err != nil {
			return nil, err
		}
	}
	return &Graph{inputs: l.Inputs(), warnings: l.warnings}, nil
}

// resolveTree sets Target on s and on every sub-schema of s that has a $ref.
func (l *Loader) resolveTree(s *Schema) error {
	if s == nil {
		return nil
	}
	if s.Ref != "" && s.Target == nil {
		t, err := l.Resolve(s)
		var re *RefError
		if errors.As(err, &re) && !re.Refused {
			l.warnings = append(l.warnings, fmt.Errorf("%w; until it resolves, it is taken as any JSON value", err))
			yes := true
			t, err = &Schema{Loc: s.Loc.Child("$ref"), Doc: s.Doc, Base: s.Base, Bool: &yes}, nil
		}
		if err != nil {
			return err
		}
		s.Target = t
	}
	for _, list := range [][]Property{s.Defs, s.Properties, s.PatternProperties} {
		for _, p := range list {
			if err := l.resolveTree(p.Schema); err != nil {
				return err
			}
		}
	}
	for _, list := range [][]*Schema{s.PrefixItems, s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range list {
			if err := l.resolveTree(c); err != nil {
				return err
			}
		}
	}
	for _, c := range []*Schema{s.AdditionalProperties, s.PropertyNames, s.Items, s.Not, s.If, s.Then, s.Else} {
		if err := l.resolveTree(c); err != nil {
			return err
		}
	}
	return nil
}
