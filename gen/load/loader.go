package load

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Doc is one schema document: a file, or an offline source's entry.
type Doc struct {
	URI  string // absolute URI without fragment: the $id, or a file:// URI
	File string // the path to show in messages
	Root *Schema
	// Input reports whether the document was named by the user (as opposed
	// to found through a $ref).
	Input bool

	byPointer map[string]*Schema
	anchors   map[string]*Schema
	loader    *Loader
}

func (d *Doc) index(s *Schema) {
	d.byPointer[s.Loc.Pointer] = s
	if s.ID != "" && s.Loc.Pointer != "" {
		d.loader.docs[stripFragment(s.ID)] = &Doc{URI: stripFragment(s.ID), File: d.File, Root: s, byPointer: map[string]*Schema{"": s}, loader: d.loader}
	}
}

// Source is an offline place to find schemas by $id: every $id that starts
// with Prefix is the file at the rest of the $id in FS.
type Source struct {
	Prefix string
	FS     fs.FS
	// Name is shown in messages (for example "embedded agentproto schemas").
	Name string
}

// Loader loads schema documents and resolves references between them.
type Loader struct {
	docs    map[string]*Doc
	order   []*Doc
	sources []Source
}

// New returns a Loader that also resolves $ids from the given sources.
func New(sources ...Source) *Loader {
	return &Loader{docs: map[string]*Doc{}, sources: sources}
}

// Inputs returns the documents the user named, in the order they were added.
func (l *Loader) Inputs() []*Doc {
	var out []*Doc
	for _, d := range l.order {
		if d.Input {
			out = append(out, d)
		}
	}
	return out
}

// AddPaths adds schema files and directories (every *.json below them, in
// lexical order) as inputs.
func (l *Loader) AddPaths(paths ...string) error { return l.addPaths(true, paths) }

// AddReferences adds schema files and directories that $refs may point
// into but that are not generated themselves.
func (l *Loader) AddReferences(paths ...string) error { return l.addPaths(false, paths) }

func (l *Loader) addPaths(input bool, paths []string) error {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, unwrapPathError(err))
		}
		if !st.IsDir() {
			if _, err := l.AddFile(p, input); err != nil {
				return err
			}
			continue
		}
		var files []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".json") && !isDataFile(filepath.Base(path)) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if len(files) == 0 {
			return fmt.Errorf("%s: no *.json schema files in this directory", p)
		}
		sort.Strings(files)
		for _, f := range files {
			if _, err := l.AddFile(f, input); err != nil {
				return err
			}
		}
	}
	return nil
}

// isDataFile reports the JSON files next to agentproto schemas that are
// data, not schemas.
func isDataFile(base string) bool {
	return base == "dispatch.json" || base == "deviations.json" || strings.HasSuffix(base, ".bundle.json")
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// AddFile loads one schema file. A file already loaded is returned as is.
func (l *Loader) AddFile(path string, input bool) (*Doc, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	for _, d := range l.order {
		if d.URI == uri || d.File == path {
			d.Input = d.Input || input
			return d, nil
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	return l.AddBytes(path, uri, data, input)
}

// AddBytes loads a schema document from memory. file names it in messages;
// uri is its retrieval URI, used as base when the document has no $id.
func (l *Loader) AddBytes(file, uri string, data []byte, input bool) (*Doc, error) {
	v, err := parseOrdered(data)
	if err != nil {
		return nil, &Error{Loc: Loc{File: file}, Msg: err.Error()}
	}
	d := &Doc{URI: uri, File: file, Input: input, byPointer: map[string]*Schema{}, anchors: map[string]*Schema{}, loader: l}
	root, err := d.parse(v, Loc{File: file}, uri, false)
	if err != nil {
		return nil, err
	}
	d.Root = root
	if root.ID != "" {
		d.URI = stripFragment(root.ID)
	}
	if prev, ok := l.docs[d.URI]; ok && prev.File != file {
		return nil, root.Loc.Errorf("$id %s is also the $id of %s: every schema file needs its own $id", d.URI, prev.File)
	}
	l.docs[d.URI] = d
	if uri != d.URI {
		l.docs[uri] = d
	}
	l.order = append(l.order, d)
	return d, nil
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

func resolveURI(base, ref string) (string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("%q is not a valid URI reference: %v", ref, err)
	}
	if base == "" {
		return r.String(), nil
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("base URI %q is not valid: %v", base, err)
	}
	return b.ResolveReference(r).String(), nil
}

// Resolve follows s.Ref and returns the schema it names.
func (l *Loader) Resolve(s *Schema) (*Schema, error) {
	abs, err := resolveURI(s.Base, s.Ref)
	if err != nil {
		return nil, s.Loc.Child("$ref").Errorf("%v", err)
	}
	docURI, frag := abs, ""
	if i := strings.IndexByte(abs, '#'); i >= 0 {
		docURI, frag = abs[:i], abs[i+1:]
	}
	d, err := l.doc(docURI)
	if err != nil {
		return nil, s.Loc.Child("$ref").Errorf("$ref %q: %v", s.Ref, err)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, s.Loc.Child("$ref").Errorf("$ref %q uses an anchor; write a JSON pointer fragment (#/$defs/Name) instead", s.Ref)
	}
	ptr, err := url.PathUnescape(frag)
	if err != nil {
		return nil, s.Loc.Child("$ref").Errorf("$ref %q has an invalid fragment: %v", s.Ref, err)
	}
	t, ok := d.byPointer[ptr]
	if !ok {
		return nil, s.Loc.Child("$ref").Errorf("$ref %q: %s has no schema at #%s", s.Ref, d.File, ptr)
	}
	return t, nil
}

func (l *Loader) doc(uri string) (*Doc, error) {
	if d, ok := l.docs[uri]; ok {
		return d, nil
	}
	for _, src := range l.sources {
		if strings.HasPrefix(uri, src.Prefix) {
			name := strings.TrimPrefix(uri, src.Prefix)
			data, err := fs.ReadFile(src.FS, name)
			if err != nil {
				return nil, fmt.Errorf("%s has no schema %s", src.Name, name)
			}
			return l.AddBytes(src.Name+":"+name, uri, data, false)
		}
	}
	if strings.HasPrefix(uri, "file://") {
		u, err := url.Parse(uri)
		if err == nil {
			return l.AddFile(filepath.FromSlash(u.Path), false)
		}
	}
	return nil, fmt.Errorf("no input schema has $id %s and nothing is fetched from the network: pass the file that defines it as an input", uri)
}
