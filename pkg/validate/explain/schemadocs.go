package explain

// The schema documents findings name types from, read when a failure
// first needs them.

import (
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"sync"
)

// Docs are the schema documents that findings name types from: each file's
// root title and its parsed document, by $id. A document is read when a
// failure first needs it: the file whose path is its $id past the
// prefix, or, for an $id that names no such file, every file once. It is
// safe for concurrent use.
type Docs struct {
	fsys   fs.FS
	prefix string
	mu     sync.Mutex
	byID   map[string]*docFile // nil for an $id no file has
	walked bool                // every file has been read
}

// docFile is a schema file as Docs keeps it.
type docFile struct {
	doc   any
	title string
}

// NewDocs returns the documents of the schema files (*.json) of fsys, whose
// $ids start with idPrefix; nothing is read until a failure is explained.
func NewDocs(fsys fs.FS, idPrefix string) *Docs {
	return &Docs{fsys: fsys, prefix: idPrefix, byID: map[string]*docFile{}}
}

// file returns the document whose $id is id, or nil.
func (d *Docs) file(id string) *docFile {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f, ok := d.byID[id]; ok {
		return f
	}
	if p, ok := strings.CutPrefix(id, d.prefix); ok && fs.ValidPath(p) {
		if got, f := d.read(p); f != nil && got == id {
			d.byID[id] = f
			return f
		}
	}
	if !d.walked {
		d.walked = true
		_ = fs.WalkDir(d.fsys, ".", func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || path.Ext(p) != ".json" {
				return nil
			}
			if got, f := d.read(p); f != nil {
				if d.byID[got] == nil {
					d.byID[got] = f
				}
			}
			return nil
		})
	}
	f := d.byID[id]
	d.byID[id] = f // remembered, found or not
	return f
}

// read parses the schema file at p and returns its $id (the prefix and p
// when it names none) and the file; nil when it is not a JSON object.
func (d *Docs) read(p string) (string, *docFile) {
	b, err := fs.ReadFile(d.fsys, p)
	if err != nil {
		return "", nil
	}
	var doc map[string]any
	if json.Unmarshal(b, &doc) != nil {
		return "", nil
	}
	id, _ := doc["$id"].(string)
	if id == "" {
		id = d.prefix + p
	}
	title, _ := doc["title"].(string)
	return id, &docFile{doc: doc, title: title}
}

// doc returns the document whose $id is id, or nil.
func (d *Docs) doc(id string) any {
	if f := d.file(id); f != nil {
		return f.doc
	}
	return nil
}

// title returns the root title of the document whose $id is id, or "".
func (d *Docs) title(id string) string {
	if f := d.file(id); f != nil {
		return f.title
	}
	return ""
}
