package load

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeTree writes files (relative path → content) under a new temporary
// folder and returns it, symbolic links resolved.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// refSchema is a schema whose one property is a $ref to ref.
func refSchema(ref string) string {
	return `{"title":"T","type":"object","properties":{"a":{"$ref":"` + ref + `"}}}`
}

// resolveAll loads the input folder in and resolves the $ref of its
// schema's property "a", counting the bytes allocated meanwhile.
func resolveAll(t *testing.T, l *Loader, in string) (allocated uint64, err error) {
	t.Helper()
	if err := l.AddPaths(in); err != nil {
		t.Fatalf("loading the input: %v", err)
	}
	a := l.Inputs()[0].Root.Properties[0].Schema
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = l.Resolve(a)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// TestRefReadsOnlyFilesInside: each hostile $ref of the issue is a one-line
// error that names the $ref and the rule, and nothing of the target is read
// (a few KiB allocated, where reading /dev/zero grew to gigabytes).
func TestRefReadsOnlyFilesInside(t *testing.T) {
	for _, tc := range []struct {
		name, ref, rule string
		files           map[string]string
	}{
		{"dev zero", "file:///dev/zero", "outside the input folders", nil},
		{"dev urandom", "file:///dev/urandom#/x", "outside the input folders", nil},
		{"etc passwd", "../../../../../../../../../../../../etc/passwd", "outside the input folders", nil},
		{"proc environ", "file:///proc/self/environ", "outside the input folders", nil},
		{"sibling folder", "../other/defs.json#/$defs/X", "outside the input folders",
			map[string]string{"other/defs.json": `{"$defs":{"X":{"type":"string","description":"SECRET-MARKER"}}}`}},
		{"missing inside", "nothing.json", "no such file", nil},
		{"directory inside", "sub", "is a directory", map[string]string{"in/sub/x.txt": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"in/schema.json": refSchema(tc.ref)}
			for k, v := range tc.files {
				files[k] = v
			}
			dir := writeTree(t, files)
			l := New()
			alloc, err := resolveAll(t, l, filepath.Join(dir, "in"))
			if err == nil {
				t.Fatal("the $ref resolved")
			}
			msg := err.Error()
			if !strings.Contains(msg, `$ref "`+tc.ref+`"`) || !strings.Contains(msg, tc.rule) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming $ref %q and %q", msg, tc.ref, tc.rule)
			}
			if strings.Contains(msg, "SECRET-MARKER") || strings.Contains(msg, "root:") {
				t.Errorf("error %q leaks the target's content", msg)
			}
			if len(l.order) != 1 {
				t.Errorf("%d documents loaded, want only the input", len(l.order))
			}
			if alloc > 1<<20 {
				t.Errorf("%d bytes allocated while refusing the $ref", alloc)
			}
		})
	}
}

// TestRefIntoReferenceFolder: a file outside the input folder is read once
// its folder is given as a reference folder (-ref).
func TestRefIntoReferenceFolder(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"in/schema.json":    refSchema("../other/defs.schema#/$defs/X"),
		"other/defs.schema": `{"$defs":{"X":{"type":"string"}}}`,
		"other/unused.json": `{"type":"string"}`,
	})
	l := New()
	if err := l.AddReferences(filepath.Join(dir, "other")); err != nil {
		t.Fatal(err)
	}
	if _, err := resolveAll(t, l, filepath.Join(dir, "in")); err != nil {
		t.Fatalf("$ref into a -ref folder: %v", err)
	}
}

// TestRefDeviceInsideRoots: a device is refused by stat, before it is
// opened, even in a folder $refs may point into.
func TestRefDeviceInsideRoots(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	dir := writeTree(t, map[string]string{"in/schema.json": refSchema("file:///dev/zero")})
	l := New()
	l.roots = append(l.roots, "/dev")
	alloc, err := resolveAll(t, l, filepath.Join(dir, "in"))
	if err == nil || !strings.Contains(err.Error(), `"/dev/zero" is a device: schemas are read only from regular files`) {
		t.Fatalf("got %v, want the regular-file rule", err)
	}
	if alloc > 1<<20 {
		t.Errorf("%d bytes allocated while refusing /dev/zero", alloc)
	}
}

// TestRefSymlinkOutOfTree: a symbolic link inside the input folder that
// leads out of it is refused, as a $ref target and in a folder walk.
func TestRefSymlinkOutOfTree(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"in/schema.json":    refSchema("link.schema#/$defs/X"),
		"other/defs.schema": `{"$defs":{"X":{"type":"string"}}}`,
	})
	if err := os.Symlink(filepath.Join(dir, "other", "defs.schema"), filepath.Join(dir, "in", "link.schema")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	_, err := resolveAll(t, New(), filepath.Join(dir, "in"))
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link to") || !strings.Contains(err.Error(), "outside the input folders") {
		t.Fatalf("got %v, want the symbolic-link rule", err)
	}

	if err := os.Symlink(filepath.Join(dir, "other", "defs.schema"), filepath.Join(dir, "in", "walked.json")); err != nil {
		t.Fatal(err)
	}
	err = New().AddPaths(filepath.Join(dir, "in"))
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link to") {
		t.Fatalf("walking a folder with a link out of it: %v", err)
	}
}

// TestFileSizeLimit: a file over MaxFileSize is refused by its size, before
// it is read. The file is sparse: it takes no disk space.
func TestFileSizeLimit(t *testing.T) {
	dir := writeTree(t, map[string]string{"in/schema.json": refSchema("big.schema")})
	big := filepath.Join(dir, "in", "big.schema")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileSize + 1); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	f.Close()
	alloc, err := resolveAll(t, New(), filepath.Join(dir, "in"))
	if err == nil || !strings.Contains(err.Error(), "over the 64 MiB limit for a schema file") {
		t.Fatalf("got %v, want the size rule", err)
	}
	if alloc > 1<<20 {
		t.Errorf("%d bytes allocated while refusing a 64 MiB file", alloc)
	}
}
