// Package compile builds a JSON Schema compiler (santhosh-tekuri/jsonschema,
// draft 2020-12) that knows every schema embedded in package schema by its
// $id. It is kept apart from package schema so that programs that only need
// the schema files, such as cmd/protogen, do not link a validator.
package compile

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/schema"
)

// New returns a draft 2020-12 compiler that knows every embedded schema by
// its $id and asserts formats ("date-time", "uri", …). It loads nothing
// from the network: a $ref to any other URL fails to compile.
func New() (*jsonschema.Compiler, error) { return NewFS(schema.Files, schema.IDPrefix) }

// NewFS returns a compiler as New does that knows the schemas of the
// schema folder fsys instead, the file at path P by the $id idPrefix + P
// (a registry's folder: registry.Registry.FS and IDPrefix).
func NewFS(fsys fs.FS, idPrefix string) (*jsonschema.Compiler, error) {
	c, err := Empty()
	if err != nil {
		return nil, err
	}
	// Each file is read when a schema first refers to it, so a run that
	// needs a few schemas parses only those.
	c.UseLoader(fsLoader{fsys, idPrefix})
	return c, nil
}

// Empty returns a draft 2020-12 compiler with agentproto's rules (formats
// asserted, the x-integer-literal keyword) that knows no schema yet and
// loads nothing: for schemas that stand alone, such as the published
// bundles.
func Empty() (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Formats are assertions here, as in ajv with ajv-formats and in the
	// generated Validate methods: a timestamp that is not RFC 3339 is an
	// error on the wire, not a note.
	c.AssertFormat()
	if err := registerIntegerLiteral(c); err != nil {
		return nil, err
	}
	c.UseLoader(offlineLoader{})
	return c, nil
}

// Document returns the embedded schema document whose $id is url, parsed as
// the compiler parses it (numbers as json.Number).
func Document(url string) (any, error) { return DocumentFS(schema.Files, schema.IDPrefix, url) }

// DocumentFS returns the schema document of the folder fsys whose $id is
// url (idPrefix + its path), parsed as the compiler parses it.
func DocumentFS(fsys fs.FS, idPrefix, url string) (any, error) {
	return fsLoader{fsys, idPrefix}.Load(url)
}

// fsLoader reads the schema of a folder whose $id is asked for.
type fsLoader struct {
	fsys   fs.FS
	prefix string
}

func (l fsLoader) Load(url string) (any, error) {
	p, ok := strings.CutPrefix(url, l.prefix)
	if !ok || path.Ext(p) != ".json" || !fs.ValidPath(p) {
		return offlineLoader{}.Load(url)
	}
	f, err := l.fsys.Open(p)
	if err != nil {
		return nil, fmt.Errorf("no embedded schema has $id %s", url)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: %w", p, err)
	}
	return doc, nil
}

type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	if strings.HasPrefix(url, schema.IDPrefix) {
		return nil, fmt.Errorf("no embedded schema has $id %s", url)
	}
	return nil, fmt.Errorf("%s is not an agentproto schema and nothing is fetched from the network", url)
}
