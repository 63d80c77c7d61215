// Package config reads .agentproto.json, the file in which a team says
// which validate rules it turns off or down, for every trace below the
// file's folder or for the traces that match path globs. The file is
// checked against its own JSON Schema (agentproto-config.schema.json) and
// every rule it names must exist.
package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"

	"github.com/agentproto/agentproto/pkg/validate"
)

// FileName is the name of the file Find looks for.
const FileName = ".agentproto.json"

// SchemaID is the $id of the file's schema.
const SchemaID = "https://agentproto.dev/schema/config/agentproto-config.schema.json"

// Schema is the JSON Schema of the file.
//
//go:embed agentproto-config.schema.json
var Schema []byte

// Config is one .agentproto.json.
type Config struct {
	// Path is the file the config was read from.
	Path string
	// Dir is its folder: the globs of Overrides are relative to it.
	Dir       string
	Rules     validate.RuleControl
	Overrides []Override
}

// Override applies Rules to the traces that match one of Files.
type Override struct {
	Files []string
	Rules validate.RuleControl
}

type rawConfig struct {
	Schema    string   `json:"$schema"`
	Disable   []string `json:"disable"`
	Warn      []string `json:"warn"`
	Overrides []struct {
		Files   []string `json:"files"`
		Disable []string `json:"disable"`
		Warn    []string `json:"warn"`
	} `json:"overrides"`
}

// Find returns the path of the nearest .agentproto.json in dir or a folder
// above it, or "" when there is none.
func Find(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("finding %s: %w", FileName, err)
	}
	for {
		p := filepath.Join(d, FileName)
		st, err := os.Stat(p)
		switch {
		case err == nil && st.Mode().IsRegular():
			return p, nil
		case err == nil:
			return "", fmt.Errorf("%s is not a regular file", p)
		case !errors.Is(err, os.ErrNotExist):
			return "", fmt.Errorf("finding %s: %w", FileName, err)
		}
		up := filepath.Dir(d)
		if up == d {
			return "", nil
		}
		d = up
	}
}

// MaxSize is the largest config file Load reads: a hand-written file of
// rule settings is a few hundred bytes, and a file from a pull request
// must not cost memory without bound.
const MaxSize = 1 << 20

// Load reads and checks the config file at p. A file over MaxSize is an
// error, found before it is parsed.
func Load(p string) (*Config, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%s: the file is larger than %d KiB, the most a config may be; it holds rule settings, which fit in a few lines", p, MaxSize>>10)
	}
	c, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	c.Path, c.Dir = p, filepath.Dir(abs)
	return c, nil
}

// Parse checks a config document against the schema and the rule names.
func Parse(b []byte) (*Config, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	sch, err := compiled()
	if err != nil {
		return nil, err
	}
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("does not fit its schema: %s", firstLeaf(ve))
		}
		return nil, fmt.Errorf("does not fit its schema: %w", err)
	}
	var raw rawConfig
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	c := &Config{Rules: validate.RuleControl{Disable: raw.Disable, Warn: raw.Warn}}
	if err := c.Rules.Check(); err != nil {
		return nil, err
	}
	for i, o := range raw.Overrides {
		ov := Override{Files: o.Files, Rules: validate.RuleControl{Disable: o.Disable, Warn: o.Warn}}
		if err := ov.Rules.Check(); err != nil {
			return nil, fmt.Errorf("/overrides/%d: %w", i, err)
		}
		for j, g := range o.Files {
			if _, err := path.Match(strings.ReplaceAll(g, "**", "*"), ""); err != nil {
				return nil, fmt.Errorf("/overrides/%d/files/%d: bad glob %q: %w", i, j, g, err)
			}
		}
		c.Overrides = append(c.Overrides, ov)
	}
	return c, nil
}

func compiled() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		return nil, fmt.Errorf("config schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, fmt.Errorf("config schema: %w", err)
	}
	s, err := c.Compile(SchemaID)
	if err != nil {
		return nil, fmt.Errorf("config schema: %w", err)
	}
	return s, nil
}

// firstLeaf renders the first leaf cause of a schema failure as
// "POINTER: reason".
func firstLeaf(e *jsonschema.ValidationError) string {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	ptr := "/" + strings.Join(e.InstanceLocation, "/")
	return fmt.Sprintf("%s: %s", ptr, e.ErrorKind.LocalizedString(xmessage.NewPrinter(language.English)))
}

// For returns the rules that apply to the trace at file: the top-level
// ones, then those of every override whose glob matches the file's path
// relative to the config's folder.
func (c *Config) For(file string) validate.RuleControl {
	rc := c.Rules
	if len(c.Overrides) == 0 {
		return rc
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return rc
	}
	rel, err := filepath.Rel(c.Dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rc
	}
	rel = filepath.ToSlash(rel)
	for _, o := range c.Overrides {
		for _, g := range o.Files {
			if Match(g, rel) {
				rc = rc.Merge(o.Rules)
				break
			}
		}
	}
	return rc
}

// Match reports whether the slash-separated relative path p matches glob g:
// * and ? within one segment, ** for any number of segments; a glob without
// a slash matches the last segment at any depth.
//
// Matching takes time proportional to the number of glob segments times the
// number of path segments, whatever the number of **: the glob is run as a
// set of positions advanced one path segment at a time, never by trying
// each way a ** could split the path.
func Match(g, p string) bool {
	if !strings.Contains(g, "/") {
		ok, _ := path.Match(g, path.Base(p))
		return ok
	}
	return matchSegs(strings.Split(strings.TrimPrefix(g, "./"), "/"), strings.Split(p, "/"), nil)
}

// matchSegs matches path segments p against glob segments g. at[i] says
// that the segments read so far can leave the glob at position i; a ** at
// i also lets the glob move past it without reading a segment. steps, if
// set, counts the glob segments tried against a path segment.
func matchSegs(g, p []string, steps *int) bool {
	at := make([]bool, len(g)+1)
	next := make([]bool, len(g)+1)
	at[0] = true
	skipStars(g, at)
	for _, seg := range p {
		clear(next)
		any := false
		for i, ok := range at[:len(g)] {
			if !ok {
				continue
			}
			if steps != nil {
				*steps++
			}
			if g[i] == "**" {
				next[i], any = true, true
			} else if m, _ := path.Match(g[i], seg); m {
				next[i+1], any = true, true
			}
		}
		if !any {
			return false
		}
		at, next = next, at
		skipStars(g, at)
	}
	return at[len(g)]
}

// skipStars lets every position at a ** also stand after it.
func skipStars(g []string, at []bool) {
	for i := range g {
		if at[i] && g[i] == "**" {
			at[i+1] = true
		}
	}
}
