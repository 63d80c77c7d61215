// Command protogen turns JSON Schemas (draft 2020-12 or draft-07) into a Go
// package with faithful tagged-union marshalling. It is made for
// //go:generate lines in downstream modules. Add it as a tool of the module
// once:
//
//	go get -tool github.com/agentproto/agentproto/cmd/protogen
//
// then, in a Go file of the package:
//
//	//go:generate go tool protogen -pkg events -o events_gen.go ./schemas
//
// Run protogen -h for every flag.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/gen"
	"github.com/agentproto/agentproto/gen/load"
	"github.com/agentproto/agentproto/gen/model"
	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/registry"
)

const usage = `protogen turns JSON Schemas into a Go package.

Usage:
  protogen [flags] SCHEMA...

SCHEMA is a schema file or a directory (every *.json below it, in lexical
order). Every root schema and every $defs entry becomes a Go type; $refs
are followed across files, into $defs, to local files and to agentproto's
own embedded schemas (which become agentproto's Go types, not copies),
never to the network.

Set it up in your module once (it is then pinned in go.mod, and go mod tidy
keeps it):

  go get -tool github.com/agentproto/agentproto/cmd/protogen

In a Go file of your package:

  //go:generate go tool protogen -pkg events -o events_gen.go ./schemas

and in CI, to fail when the generated code is stale:

  go tool protogen -pkg events -o events_gen.go -check ./schemas

A union whose alternative the JSON value alone cannot decide is kept as raw
JSON with an As/From accessor per alternative, and listed once on standard
error as a warning, as is every constraint Validate does not check; -strict
makes such a union an error.

Flags:
`

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

type mapFlag []model.Mapping

func (m *mapFlag) String() string { return fmt.Sprint(*m) }

func (m *mapFlag) Set(s string) error {
	prefix, path, ok := strings.Cut(s, "=")
	if !ok || prefix == "" || path == "" {
		return errors.New("want ID-PREFIX=IMPORT/PATH, for example https://example.com/schemas/=example.com/go/types")
	}
	*m = append(*m, model.Mapping{Prefix: prefix, Path: path})
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// agentproto returns agentproto's embedded schemas, which a downstream
// schema may refer to by $id, and the maps that send each registry
// version's schemas to the Go package generated from it, so that such a
// schema gets agentproto's types instead of copies.
func agentproto() ([]load.Source, []model.Mapping, error) {
	reg, err := registry.Embedded()
	if err != nil {
		return nil, nil, err
	}
	var maps []model.Mapping
	for _, v := range reg.Versions("") {
		maps = append(maps, model.Mapping{Prefix: v.IDPrefix(), Path: v.Package})
	}
	return []load.Source{{Prefix: reg.IDPrefix(), FS: schema.Files, Name: "agentproto"}}, maps, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("protogen", flag.ContinueOnError)
	pkg := fs.String("pkg", "", "Go package name of the output (required)")
	out := fs.String("o", "", "output file, or a directory to write PKG_gen.go into; standard output when empty")
	check := fs.Bool("check", false, "do not write; exit 1 with a unified diff when the file on disk differs from what would be generated")
	defsOnly := fs.Bool("defs-only", false, "generate the $defs of the inputs but not their root schemas (for a root that is a protocol-wide anyOf)")
	strict := fs.Bool("strict", false, "fail on a union whose alternative cannot be decided from the JSON value alone, instead of keeping it as raw JSON with an accessor per alternative (each such union is a warning on standard error)")
	fs.Bool("loose-unions", false, "accepted for old go:generate lines; it is the default now (see -strict)")
	floats := fs.String("float-format", "js", "how encoders write non-integer numbers: js (100, 12.5, as JavaScript and encoding/json) or serde (100.0, as Rust's serde_json, for byte-identical output to Rust peers)")
	ints := fs.String("integer-format", "schema", "which numbers decoders take for an integer member: schema (any number with an integral value, 1.0 and 1e2 included, as JSON Schema counts integers) or serde (integer literals only: 1.0, 1e2 and -0 are decode errors naming their JSON pointer, as Rust's serde_json rejects them)")
	var refs listFlag
	fs.Var(&refs, "ref", "a schema file or directory that $refs may point into, without generating it (repeatable; use with -map)")
	var maps mapFlag
	fs.Var(&maps, "map", "ID-PREFIX=IMPORT/PATH: refer to the Go package at IMPORT/PATH for every schema whose $id starts with ID-PREFIX instead of generating it (repeatable; agentproto's own schemas are mapped to its packages by default)")
	// -h prints the help on standard output (so that it pipes to a pager);
	// a bad flag is one line and a hint on standard error.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "protogen: %v\nRun 'protogen -h' for usage.\n", err)
		return 2
	}
	if *pkg == "" {
		fmt.Fprintln(stderr, "protogen: -pkg is required (the Go package name of the output); see protogen -h")
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "protogen: no schema files given; see protogen -h")
		return 2
	}
	if *check && *out == "" {
		fmt.Fprintln(stderr, "protogen: -check needs -o, the file to compare with")
		return 2
	}
	if *floats != "js" && *floats != "serde" {
		fmt.Fprintf(stderr, "protogen: -float-format is js or serde, not %q\n", *floats)
		return 2
	}
	if *ints != "schema" && *ints != "serde" {
		fmt.Fprintf(stderr, "protogen: -integer-format is schema or serde, not %q\n", *ints)
		return 2
	}
	sources, defaults, err := agentproto()
	if err != nil {
		fmt.Fprintf(stderr, "protogen: %v\n", err)
		return 2
	}
	src, err := gen.Generate(gen.Config{Inputs: fs.Args(), References: refs, Package: *pkg, Maps: append(maps, defaults...), Sources: sources, DefsOnly: *defsOnly, Strict: *strict, Warn: func(w error) { fmt.Fprintf(stderr, "protogen: warning: %v\n", w) }, SerdeFloats: *floats == "serde", SerdeIntegers: *ints == "serde"})
	if err != nil {
		fmt.Fprintf(stderr, "protogen: %v\n", err)
		return 2
	}
	if *out == "" {
		if _, err := stdout.Write(src); err != nil {
			fmt.Fprintf(stderr, "protogen: writing standard output: %v\n", err)
			return 2
		}
		return 0
	}
	path := *out
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, *pkg+"_gen.go")
	}
	if *check {
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "protogen: %v\n", err)
			return 2
		}
		if bytes.Equal(old, src) {
			return 0
		}
		fmt.Fprintf(stdout, "%s", unifiedDiff(path+" (on disk)", path+" (generated)", string(old), string(src)))
		fmt.Fprintf(stderr, "protogen: %s is stale: run go generate (or protogen without -check) and commit the result\n", path)
		return 1
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		fmt.Fprintf(stderr, "protogen: %v\n", err)
		return 2
	}
	return 0
}
