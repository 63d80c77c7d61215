package load

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
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
	loader    *Loader
	// raw is the parsed document, for a $ref that points into a part of it
	// no schema keyword reaches (an object that groups schemas).
	raw any
	// parent and prefix are set on a schema with its own $id embedded in
	// a document: its pointers are the parent's, under prefix.
	parent *Doc
	prefix string
}

// Owner returns the root or $defs entry of the document that contains s
// (s itself when it is one): the named schema an inline schema belongs to.
func (d *Doc) Owner(s *Schema) *Schema {
	p := s.Loc.Pointer
	for {
		i := strings.LastIndex(p, "/$defs/")
		if i < 0 {
			i = strings.LastIndex(p, "/definitions/")
		}
		if i < 0 {
			return d.Root
		}
		// The entry is the pointer up to the name after /$defs/.
		rest := p[i+1:]
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) >= 2 {
			if o, ok := d.byPointer[p[:i+1+len(parts[0])+1+len(parts[1])]]; ok {
				return o
			}
		}
		p = p[:i]
	}
}

func (d *Doc) index(s *Schema) {
	d.byPointer[s.Loc.Pointer] = s
	if i := strings.IndexByte(s.ID, '#'); i >= 0 && i < len(s.ID)-1 {
		// A draft-07 "$id": "#name" names a location, not a resource.
		d.loader.anchors[s.ID] = s
		return
	}
	if s.ID != "" && s.Loc.Pointer != "" {
		d.loader.docs[stripFragment(s.ID)] = &Doc{URI: stripFragment(s.ID), File: d.File, Root: s, loader: d.loader, parent: d, prefix: s.Loc.Pointer}
	}
}

// lookup returns the schema at the JSON pointer ptr of the document. A
// pointer into a value that is not reached through schema keywords (lerna's
// "#/$defs/commandOptions/add/dev", where commandOptions groups schemas
// without being one) is read as a schema on first use, as validators do.
func (d *Doc) lookup(ptr string) (*Schema, bool, error) {
	if d.parent != nil {
		return d.parent.lookup(d.prefix + ptr)
	}
	if t, ok := d.byPointer[ptr]; ok {
		return t, true, nil
	}
	v, ok := walkPointer(d.raw, ptr)
	switch v.(type) {
	case *object, bool:
	default:
		ok = false // a string, a number, null or an array is no schema
	}
	if !ok {
		return nil, false, nil
	}
	dr := draftModern
	if d.Root != nil {
		dr = draftOf(d.Root)
	}
	base := d.URI
	if d.Root != nil && d.Root.Base != "" {
		base = d.Root.Base
	}
	t, err := d.parse(v, Loc{File: d.File, Pointer: ptr}, base, dr)
	if err != nil {
		return nil, false, err
	}
	if err := d.loader.resolveTree(t); err != nil {
		return nil, false, err
	}
	return t, true, nil
}

// walkPointer returns the value at the JSON pointer ptr of a parsed
// document.
func walkPointer(v any, ptr string) (any, bool) {
	ok := jsonpointer.Walk(ptr, func(tok string) bool {
		switch t := v.(type) {
		case *object:
			var found bool
			v, found = t.Get(tok)
			return found
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return false
			}
			v = t[i]
			return true
		}
		return false
	})
	if ptr == "" {
		return v, v != nil
	}
	return v, ok
}

// Source is an offline place to find schemas by $id: every $id that starts
// with Prefix is the file at the rest of the $id in FS.
type Source struct {
	Prefix string
	FS     fs.FS
	// Name is shown in messages (for example "embedded agentproto schemas").
	Name string
}

// MaxFileSize is the largest schema file a Loader reads: 64 MiB, orders of
// magnitude above any real schema, so a $ref to a huge file is an error
// rather than minutes of parsing.
const MaxFileSize = 64 << 20

// Loader loads schema documents and resolves references between them.
//
// It reads only what it should: every file it reads must be a regular file
// of at most MaxFileSize bytes (checked with stat before it is opened, so a
// device or a named pipe is never opened), and a $ref to a file:// URI must
// name a file inside one of the folders given to AddPaths or AddReferences
// (a file's folder, for a file given by name) once symbolic links are
// resolved. Anything else is an error that names the $ref and the rule.
type Loader struct {
	docs    map[string]*Doc
	anchors map[string]*Schema // by absolute URI with the anchor as fragment
	order   []*Doc
	sources []Source
	roots   []string // the folders $refs may point into, symbolic links resolved
	// warnings are the $refs that could not be resolved: each is modelled
	// as any JSON value, and Graph returns them.
	warnings []error
}

// New returns a Loader that also resolves $ids from the given sources, and
// the standard meta-schemas from the embedded copies.
func New(sources ...Source) *Loader {
	return &Loader{docs: map[string]*Doc{}, anchors: map[string]*Schema{}, sources: append(append([]Source(nil), sources...), metaSources()...)}
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
		root := p
		if !st.IsDir() {
			root = filepath.Dir(p)
		}
		if err := l.addRoot(root); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if !st.IsDir() {
			if _, err := l.AddFile(p, input); err != nil {
				return err
			}
			continue
		}
		var files, bundles []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".bundle.json") {
				bundles = append(bundles, path)
			}
			if !d.IsDir() && strings.HasSuffix(path, ".json") && !isDataFile(filepath.Base(path)) && !isCatalogue(path) {
				if d.Type()&fs.ModeSymlink != 0 {
					// A link may not take the walk out of the folder.
					real, err := filepath.EvalSymlinks(path)
					if err != nil {
						return err
					}
					if !within(l.roots[len(l.roots)-1], real) {
						return fmt.Errorf("%q is a symbolic link to %q, outside %q: schemas are read only inside the folders given", path, real, p)
					}
				}
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if len(files) == 0 && len(bundles) > 0 {
			// A folder of published bundles only: the bundles are the
			// schemas (beside their sources, they repeat them).
			for _, b := range bundles {
				if err := l.checkRefFile(b); err != nil {
					return fmt.Errorf("%s: %w", p, err)
				}
			}
			files = bundles
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

// isCatalogue reports an agentproto requirement catalogue: a
// requirements.json beside a dispatch.json (elsewhere, a file of that name
// may well be a schema).
func isCatalogue(path string) bool {
	if filepath.Base(path) != "requirements.json" {
		return false
	}
	_, err := os.Stat(filepath.Join(filepath.Dir(path), "dispatch.json"))
	return err == nil
}

// isDataFile reports the JSON files next to agentproto schemas that are
// data, not schemas.
func isDataFile(base string) bool {
	return base == "dispatch.json" || base == "deviations.json" || base == "history.json" || base == "history-notes.json" || strings.HasSuffix(base, ".bundle.json")
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
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l.AddBytes(path, uri, data, input)
}

// addRoot records dir as a folder $refs may point into.
func (l *Loader) addRoot(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return unwrapPathError(err)
	}
	l.roots = append(l.roots, real)
	return nil
}

// inRoots reports whether path, absolute with symbolic links resolved, is
// inside one of the roots.
func (l *Loader) inRoots(path string) bool {
	for _, r := range l.roots {
		if within(r, path) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or below it; both are absolute and
// clean.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkRefFile checks, without opening it, that the file a $ref names may be
// read: inside the roots once symbolic links are resolved, a regular file,
// at most MaxFileSize bytes. The error states the rule broken.
func (l *Loader) checkRefFile(path string) error {
	real, err := filepath.EvalSymlinks(path) // Lstat and Readlink only
	if err != nil {
		if !l.inRoots(filepath.Clean(path)) {
			return refusal{fmt.Errorf("%q is outside the input folders and the -ref folders: a $ref may only name a file inside them (add its folder with -ref)", path)}
		}
		return fmt.Errorf("%q: %w", path, unwrapPathError(err))
	}
	if !l.inRoots(real) {
		if real != filepath.Clean(path) {
			return refusal{fmt.Errorf("%q is a symbolic link to %q, outside the input folders and the -ref folders: a $ref may only name a file inside them (add its folder with -ref)", path, real)}
		}
		return refusal{fmt.Errorf("%q is outside the input folders and the -ref folders: a $ref may only name a file inside them (add its folder with -ref)", path)}
	}
	st, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("%q: %w", path, unwrapPathError(err))
	}
	return checkRegular(path, st)
}

// checkRegular is the rule for every file read: a regular file of at most
// MaxFileSize bytes.
func checkRegular(path string, st fs.FileInfo) error {
	m := st.Mode()
	if !m.IsRegular() {
		what := "not a regular file"
		switch {
		case m.IsDir():
			what = "a directory"
		case m&fs.ModeNamedPipe != 0:
			what = "a named pipe"
		case m&fs.ModeSocket != 0:
			what = "a socket"
		case m&fs.ModeDevice != 0:
			what = "a device"
		}
		return refusal{fmt.Errorf("%q is %s: schemas are read only from regular files", path, what)}
	}
	if st.Size() > MaxFileSize {
		return refusal{fmt.Errorf("%q is %d bytes, over the %d MiB limit for a schema file", path, st.Size(), MaxFileSize>>20)}
	}
	return nil
}

// readFile reads a schema file after checkRegular has passed on it: stat
// first, so that a device or a named pipe is never opened, then a read of
// at most MaxFileSize bytes from the file that was checked.
func readFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if err := checkRegular(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	defer f.Close()
	if st2, err := f.Stat(); err != nil || !os.SameFile(st, st2) {
		return nil, fmt.Errorf("%q changed while it was being opened", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, refusal{fmt.Errorf("%q is over the %d MiB limit for a schema file", path, MaxFileSize>>20)}
	}
	return data, nil
}

// AddBytes loads a schema document from memory. file names it in messages;
// uri is its retrieval URI, used as base when the document has no $id.
func (l *Loader) AddBytes(file, uri string, data []byte, input bool) (*Doc, error) {
	v, err := parseOrdered(data)
	if err != nil {
		return nil, &Error{Loc: Loc{File: file}, Msg: err.Error()}
	}
	d := &Doc{URI: uri, File: file, Input: input, byPointer: map[string]*Schema{}, loader: l, raw: v}
	root, err := d.parse(v, Loc{File: file}, uri, draftModern)
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

// Resolve follows s.Ref and returns the schema it names. Its error is a
// *RefError; Refused tells a $ref the loader will not follow (outside the
// folders, not a regular file, too big) from one that names nothing.
func (l *Loader) Resolve(s *Schema) (*Schema, error) {
	abs, err := resolveURI(s.Base, s.Ref)
	if err != nil {
		return nil, &RefError{Err: s.Loc.Child("$ref").Errorf("%v", err)}
	}
	docURI, frag := abs, ""
	if i := strings.IndexByte(abs, '#'); i >= 0 {
		docURI, frag = abs[:i], abs[i+1:]
	}
	d, err := l.doc(docURI)
	refused := errors.As(err, new(refusal))
	if err != nil && !refused {
		if alt := l.besideFile(s, docURI); alt != nil {
			d, err = alt, nil
		}
	}
	if err != nil {
		return nil, &RefError{Err: s.Loc.Child("$ref").Errorf("$ref %q: %v", s.Ref, err), Refused: refused}
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		if t, ok := l.anchors[d.URI+"#"+frag]; ok {
			return t, nil
		}
		if t, ok := l.anchors[docURI+"#"+frag]; ok {
			return t, nil
		}
		return nil, &RefError{Err: s.Loc.Child("$ref").Errorf("$ref %q: %s has no anchor %q", s.Ref, d.File, frag)}
	}
	ptr, err := url.PathUnescape(frag)
	if err != nil {
		return nil, &RefError{Err: s.Loc.Child("$ref").Errorf("$ref %q has an invalid fragment: %v", s.Ref, err)}
	}
	t, ok, err := d.lookup(ptr)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &RefError{Err: s.Loc.Child("$ref").Errorf("$ref %q: %s has no schema at #%s", s.Ref, d.File, ptr)}
	}
	return t, nil
}

// RefError is a $ref that cannot be resolved. Refused is set when the
// loader will not read what it names (a rule of Loader's); otherwise
// nothing by that name was found.
type RefError struct {
	Err     error
	Refused bool
}

func (e *RefError) Error() string { return e.Err.Error() }
func (e *RefError) Unwrap() error { return e.Err }

// refusal marks an error of a rule of Loader's about what it reads.
type refusal struct{ error }

func (r refusal) Unwrap() error { return r.error }

// besideFile finds the document a $ref names by its path next to the file
// of the referring schema, when no document has the URI the $ref resolves
// to: a side file whose $id differs from its name (CycloneDX's), or a
// document referred to by an absolute URI whose last segment is a file
// beside. It returns nil when there is none.
func (l *Loader) besideFile(s *Schema, docURI string) *Doc {
	if s.Doc == nil {
		return nil
	}
	file, err := filepath.Abs(s.Doc.File)
	if err != nil {
		return nil
	}
	if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	var candidates []string
	ref := stripFragment(s.Ref)
	if r, err := url.Parse(ref); err == nil && r.Scheme == "" && r.Host == "" && r.Path != "" && !strings.HasPrefix(r.Path, "/") {
		candidates = append(candidates, filepath.Join(filepath.Dir(file), filepath.FromSlash(r.Path)))
	}
	if u, err := url.Parse(docURI); err == nil && (u.Scheme == "http" || u.Scheme == "https") && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
		candidates = append(candidates, filepath.Join(filepath.Dir(file), path.Base(u.Path)))
	}
	for _, c := range candidates {
		if c == file {
			continue
		}
		if st, err := os.Stat(c); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if err := l.checkRefFile(c); err != nil {
			continue
		}
		if d, err := l.AddFile(c, false); err == nil {
			return d
		}
	}
	return nil
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
			path := filepath.FromSlash(u.Path)
			if err := l.checkRefFile(path); err != nil {
				return nil, err
			}
			return l.AddFile(path, false)
		}
	}
	return nil, fmt.Errorf("no input schema has $id %s and nothing is fetched from the network: pass the file that defines it as an input", uri)
}
