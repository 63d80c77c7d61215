// Package publish builds what agentproto publishes for implementers in other
// languages from the schema folder: one self-contained JSON Schema bundle
// per protocol version (schema/<protocol>/<version>/<name>.bundle.json) and
// one Markdown reference page per protocol version
// (docs/<protocol>-<version>.md), with an index (docs/README.md). The output is deterministic: the same schemas give
// the same bytes.
package publish

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Roots of the generated files.
const (
	RootSchema = "schema"
	RootDocs   = "docs"
)

// File is one generated file.
type File struct {
	Root string // RootSchema or RootDocs
	Path string // slash-separated path below the root
	Data []byte
}

// Generate builds every bundle and docs page from the schema folder fsys.
func Generate(fsys fs.FS) ([]File, error) {
	versions, err := FindVersions(fsys)
	if err != nil {
		return nil, err
	}
	if len(versions) == 0 {
		return nil, errors.New("publish: no <protocol>/<version>/dispatch.json in the schema folder")
	}
	var out []File
	byProto := map[string][]*Bundle{}
	var protos []string
	for _, v := range versions {
		b, err := Build(fsys, v)
		if err != nil {
			return nil, err
		}
		data, err := b.Encode()
		if err != nil {
			return nil, err
		}
		out = append(out, File{Root: RootSchema, Path: v.BundleFile(), Data: data})
		if _, ok := byProto[v.Protocol]; !ok {
			protos = append(protos, v.Protocol)
		}
		byProto[v.Protocol] = append(byProto[v.Protocol], b)
	}
	for _, p := range protos {
		for _, b := range byProto[p] {
			page, err := RenderPage([]*Bundle{b})
			if err != nil {
				return nil, err
			}
			out = append(out, File{Root: RootDocs, Path: b.PageFile(), Data: page})
		}
	}
	var all []*Bundle
	for _, p := range protos {
		all = append(all, byProto[p]...)
	}
	out = append(out, File{Root: RootDocs, Path: "README.md", Data: RenderIndex(all)})
	return out, nil
}

// Dirs maps each root to a folder on disk.
type Dirs map[string]string

func (d Dirs) path(f File) (string, error) {
	dir, ok := d[f.Root]
	if !ok {
		return "", fmt.Errorf("publish: no folder for %s files", f.Root)
	}
	return filepath.Join(dir, filepath.FromSlash(f.Path)), nil
}

// Stale lists the files on disk that differ from files (missing or with other
// content), and the bundles below the schema folder that no version produces
// any more, as paths on disk in the order of files, then sorted.
func Stale(files []File, dirs Dirs) ([]string, error) {
	var stale []string
	for _, f := range files {
		p, err := dirs.path(f)
		if err != nil {
			return nil, err
		}
		have, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("publish: %w", err)
		}
		if err != nil || !bytes.Equal(have, f.Data) {
			stale = append(stale, p)
		}
	}
	orphans, err := orphans(files, dirs)
	if err != nil {
		return nil, err
	}
	return append(stale, orphans...), nil
}

// Write writes the files that differ from files on disk and removes orphaned
// bundles and pages. It returns the paths it changed.
func Write(files []File, dirs Dirs) ([]string, error) {
	var changed []string
	for _, f := range files {
		p, err := dirs.path(f)
		if err != nil {
			return nil, err
		}
		if have, err := os.ReadFile(p); err == nil && bytes.Equal(have, f.Data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		changed = append(changed, p)
	}
	old, err := orphans(files, dirs)
	if err != nil {
		return nil, err
	}
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			return nil, fmt.Errorf("publish: removing a file no version produces: %w", err)
		}
		changed = append(changed, p)
	}
	return changed, nil
}

// orphans lists the generated files on disk that files does not contain:
// orphaned bundles, then the Markdown pages of the docs folder that no
// version produces any more (a page per protocol, before the pages were
// split per version).
func orphans(files []File, dirs Dirs) ([]string, error) {
	out, err := orphanBundles(files, dirs)
	if err != nil {
		return nil, err
	}
	dir, ok := dirs[RootDocs]
	if !ok {
		return out, nil
	}
	want := map[string]bool{}
	for _, f := range files {
		if f.Root == RootDocs {
			want[f.Path] = true
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("publish: looking for old pages: %w", err)
	}
	var pages []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") && !want[e.Name()] {
			pages = append(pages, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(pages)
	return append(out, pages...), nil
}

// orphanBundles lists the *.bundle.json files below the schema folder that
// files does not contain.
func orphanBundles(files []File, dirs Dirs) ([]string, error) {
	dir, ok := dirs[RootSchema]
	if !ok {
		return nil, nil
	}
	want := map[string]bool{}
	for _, f := range files {
		if f.Root == RootSchema {
			want[f.Path] = true
		}
	}
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".bundle.json") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !want[filepath.ToSlash(rel)] {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("publish: looking for old bundles: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// docLink is the path of a schema-folder file as seen from docs/.
func docLink(p string) string { return path.Join("..", "schema", p) }
