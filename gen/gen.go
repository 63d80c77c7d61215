// Package gen turns JSON Schemas into a Go package. It runs three separate
// stages: package load reads and resolves the schemas, package model makes
// every decision about the Go types (names, shapes, unions, checks), and
// package emit renders the model with jennifer. cmd/protogen is a thin CLI
// over Generate. The package knows nothing of agentproto's own schemas: a
// caller passes the schema sets and $id maps it wants (cmd/protogen adds
// agentproto's, from the registry).
package gen

import (
	"fmt"
	"go/token"
	"path/filepath"

	"github.com/agentproto/agentproto/gen/emit"
	"github.com/agentproto/agentproto/gen/load"
	"github.com/agentproto/agentproto/gen/model"
	"github.com/agentproto/agentproto/gen/rpc"
)

// Config is one generation run.
type Config struct {
	// Inputs are schema files or directories.
	Inputs []string
	// References are schema files or directories that $refs may point
	// into, without generating them (typically together with Maps).
	References []string
	// Package is the Go package name of the output.
	Package string
	// Maps are $id prefixes that other Go packages hold; tried in order.
	// Only the types of a map marked Generated (a package generated from
	// the same schemas by the same rules) can make a type that holds them
	// complete.
	Maps []model.Mapping
	// Sources are schema sets, beside the files on disk, that $refs may
	// point into by $id (cmd/protogen passes agentproto's embedded
	// schemas, with Maps sending them to agentproto's packages).
	Sources []load.Source
	// DefsOnly generates only the $defs of the inputs, not their roots (for
	// schemas such as the official ACP schema, whose root is a protocol-wide
	// anyOf).
	DefsOnly bool
	// SerdeFloats writes numbers as serde_json does (100.0), for packages
	// whose peers are Rust programs and whose output must match byte for
	// byte; by default numbers are written as JavaScript writes them (100).
	SerdeFloats bool
	// SerdeIntegers makes decoders read integer members as Rust's serde_json
	// does: a number with a fraction or an exponent (1.0, 1e2), or -0, is a
	// decode error with its JSON pointer, for packages whose peers are Rust
	// programs that would reject it. By default any number with an integral
	// value is taken, as JSON Schema's "integer" counts 1.0.
	SerdeIntegers bool
	// Strict makes a union that cannot be decided from the JSON value
	// alone an error. By default such a union is kept as raw JSON with an
	// accessor per alternative, and reported to Warn.
	Strict bool
	// Warn, when set, receives each warning once: a located note on what
	// the generated code does not do the way the schema reads.
	Warn func(error)
}

// Generate runs the three stages and returns gofmt-formatted Go source.
func Generate(cfg Config) ([]byte, error) {
	g, pkg, err := build(cfg)
	if err != nil {
		return nil, err
	}
	var sources []string
	for _, d := range g.Inputs() {
		sources = append(sources, filepath.ToSlash(d.File))
	}
	return emit.Render(pkg, sources)
}

// build loads the schemas and makes the model, passing the warnings on.
func build(cfg Config) (*load.Graph, *model.Package, error) {
	if !token.IsIdentifier(cfg.Package) {
		return nil, nil, fmt.Errorf("package name %q is not a Go identifier", cfg.Package)
	}
	if len(cfg.Inputs) == 0 {
		return nil, nil, fmt.Errorf("no schema files given")
	}
	l := load.New(cfg.Sources...)
	if err := l.AddPaths(cfg.Inputs...); err != nil {
		return nil, nil, err
	}
	if err := l.AddReferences(cfg.References...); err != nil {
		return nil, nil, err
	}
	g, err := l.Graph()
	if err != nil {
		return nil, nil, err
	}
	pkg, err := model.Build(g, model.Options{
		Package:       cfg.Package,
		Maps:          cfg.Maps,
		DefsOnly:      cfg.DefsOnly,
		Strict:        cfg.Strict,
		SerdeFloats:   cfg.SerdeFloats,
		SerdeIntegers: cfg.SerdeIntegers,
	})
	if err != nil {
		return nil, nil, err
	}
	if cfg.Warn != nil {
		for _, w := range append(g.Warnings(), pkg.Warnings...) {
			cfg.Warn(w)
		}
	}
	return g, pkg, nil
}

// RPC is a typed JSON-RPC connection to generate (see package gen/rpc).
type RPC struct {
	// Table is the method table's file; the schema files its rows name
	// are beside it, among the inputs.
	Table string
	// TypesPath is the import path of the package generated from the
	// inputs (by Generate with the same Config).
	TypesPath string
	// Package is the Go package name of the connection.
	Package string
}

// GenerateRPC returns the gofmt-formatted source of the typed connection of
// a method table, whose params and results are the types Generate makes of
// cfg's inputs in the package at r.TypesPath. Warnings about the types are
// not repeated: Generate gives them.
func GenerateRPC(cfg Config, r RPC) ([]byte, error) {
	if !token.IsIdentifier(r.Package) {
		return nil, fmt.Errorf("package name %q is not a Go identifier", r.Package)
	}
	if r.TypesPath == "" {
		return nil, fmt.Errorf("no import path for the types of the table's params and results")
	}
	table, err := rpc.ReadTable(r.Table)
	if err != nil {
		return nil, err
	}
	cfg.Warn = nil
	g, pkg, err := build(cfg)
	if err != nil {
		return nil, err
	}
	_, byID := model.LookupTypes(pkg)
	byFile := map[string]string{}
	for _, d := range g.Inputs() {
		abs, err := filepath.Abs(d.File)
		if err == nil {
			byFile[abs] = d.URI
		}
	}
	dir := filepath.Dir(r.Table)
	typeOf := func(file string) (*model.Type, error) {
		abs, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(file)))
		if err != nil {
			return nil, err
		}
		uri, ok := byFile[abs]
		if !ok {
			return nil, fmt.Errorf("%s is not among the schemas given", file)
		}
		t, ok := byID[uri+"#"]
		if !ok {
			return nil, fmt.Errorf("%s (%s) made no Go type", file, uri)
		}
		return t, nil
	}
	return rpc.Render(table, rpc.Config{Package: r.Package, TypesPath: r.TypesPath, Type: typeOf, Source: filepath.ToSlash(r.Table)})
}
