// Schema locations in the ACP v1 files: a subschema by file and pointer,
// $ref resolution, nullable branches and properties.

package schema_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// acpSchemaRef locates a subschema: a file below acpDir and a pointer in it.
type acpSchemaRef struct{ file, ptr string }

func (r acpSchemaRef) node(t testing.TB) map[string]any {
	t.Helper()
	v := acpDocCached(t, r.file)
	for _, tok := range acpSplitPointer(r.ptr) {
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(c) {
				t.Fatalf("bad pointer %s#%s", r.file, r.ptr)
			}
			v = c[i]
		default:
			t.Fatalf("bad pointer %s#%s", r.file, r.ptr)
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s#%s is not a schema object", r.file, r.ptr)
	}
	return m
}

func (r acpSchemaRef) child(tokens ...string) acpSchemaRef {
	return acpSchemaRef{file: r.file, ptr: r.ptr + acpJSONPointer(tokens...)}
}

func acpSplitPointer(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(p[1:], "/")
	for i, tok := range toks {
		toks[i] = acpPointerUnescape.Replace(tok)
	}
	return toks
}

var (
	acpDocCacheMu sync.Mutex
	acpDocCache   = map[string]any{}
)

func acpDocCached(t testing.TB, file string) any {
	t.Helper()
	acpDocCacheMu.Lock()
	defer acpDocCacheMu.Unlock()
	if v, ok := acpDocCache[file]; ok {
		return v
	}
	v := acpDoc(t, file)
	acpDocCache[file] = v
	return v
}

// acpResolveRef follows the $ref of the schema at r, if any.
func acpResolveRef(t testing.TB, r acpSchemaRef) (acpSchemaRef, bool) {
	t.Helper()
	ref, ok := r.node(t)["$ref"].(string)
	if !ok {
		return r, false
	}
	file, frag, _ := strings.Cut(ref, "#")
	if file == "" {
		file = r.file
	}
	return acpSchemaRef{file: file, ptr: frag}, true
}

// acpDerefAll follows $ref chains and the non-null branch of nullable pairs.
func acpDerefAll(t testing.TB, r acpSchemaRef) acpSchemaRef {
	t.Helper()
	for {
		if next, ok := acpResolveRef(t, r); ok {
			r = next
			continue
		}
		if alt, ok := acpNullableBranch(r.node(t)); ok {
			r = r.child("anyOf", fmt.Sprint(alt))
			continue
		}
		return r
	}
}

// acpNullableBranch returns the index of the non-null branch of an anyOf that
// pairs one schema with {"type": "null"}.
func acpNullableBranch(m map[string]any) (int, bool) {
	alts, _ := m["anyOf"].([]any)
	if len(alts) != 2 {
		return 0, false
	}
	for i, a := range alts {
		if am, _ := a.(map[string]any); am["type"] == "null" && len(am) == 1 {
			return 1 - i, true
		}
	}
	return 0, false
}

// acpLookupProperty finds the schema of property name of the object schema at r
// (following references, nullable pairs and allOf).
func acpLookupProperty(t testing.TB, r acpSchemaRef, name string) (acpSchemaRef, bool) {
	t.Helper()
	r = acpDerefAll(t, r)
	m := r.node(t)
	if props, ok := m["properties"].(map[string]any); ok {
		if _, ok := props[name]; ok {
			return r.child("properties", name), true
		}
	}
	allOf, _ := m["allOf"].([]any)
	for i := range allOf {
		if p, ok := acpLookupProperty(t, r.child("allOf", fmt.Sprint(i)), name); ok {
			return p, true
		}
	}
	return acpSchemaRef{}, false
}
