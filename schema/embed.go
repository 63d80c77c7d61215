// Package schema holds the JSON Schemas of agentproto, embedded so that every
// tool resolves their $id offline, and a compiler that knows them all.
package schema

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Files holds every schema below this directory, keyed by path
// (for example "acp/v1/common.json").
//
//go:embed all:acp all:arcp all:arcan
var Files embed.FS

// IDPrefix is the prefix of every $id in Files: the $id of the file at path
// P is IDPrefix + P.
const IDPrefix = "https://agentproto.dev/schema/"

// DispatchTable is the base name of the machine-readable table in each
// protocol version folder that maps a message to its schema file.
const DispatchTable = "dispatch.json"

// isData reports whether a .json file in Files is data rather than a
// source schema: the dispatch tables, ARCP's table of dialect deviations,
// and the generated single-file bundles (*.bundle.json), which repeat the
// source schemas for other languages.
func isData(base string) bool {
	return base == DispatchTable || base == "deviations.json" || strings.HasSuffix(base, ".bundle.json")
}

// Paths lists the schema files (*.json except data files such as the dispatch
// tables) in Files below dir ("." for all), in lexical order.
func Paths(dir string) ([]string, error) {
	var out []string
	err := fs.WalkDir(Files, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && path.Ext(p) == ".json" && !isData(path.Base(p)) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// NewCompiler returns a draft 2020-12 compiler that knows every embedded schema
// by its $id and asserts formats ("date-time", "uri", …). It loads nothing
// from the network: a $ref to any other URL fails to compile.
func NewCompiler() (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Formats are assertions here, as in ajv with ajv-formats and in the
	// generated Validate methods: a timestamp that is not RFC 3339 is an
	// error on the wire, not a note.
	c.AssertFormat()
	c.UseLoader(offlineLoader{})
	paths, err := Paths(".")
	if err != nil {
		return nil, fmt.Errorf("schema: listing embedded files: %w", err)
	}
	for _, p := range paths {
		f, err := Files.Open(p)
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("schema: %s: %w", p, err)
		}
		if err := c.AddResource(IDPrefix+p, doc); err != nil {
			return nil, fmt.Errorf("schema: %s: %w", p, err)
		}
	}
	return c, nil
}

type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	if strings.HasPrefix(url, IDPrefix) {
		return nil, fmt.Errorf("no embedded schema has $id %s", url)
	}
	return nil, fmt.Errorf("%s is not an agentproto schema and nothing is fetched from the network", url)
}
