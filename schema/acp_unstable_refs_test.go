// Schema locations for the ACP version suites of acp_unstable_test.go: a
// subschema by file and pointer, $ref resolution, properties and the type
// names our schemas and the official one give.

package schema_test

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/schema"
)

// acpUnstableRef locates a subschema: an embedded file and a pointer in it.
type acpUnstableRef struct{ file, ptr string }

func (s *acpUnstableSuite) node(t testing.TB, r acpUnstableRef) map[string]any {
	t.Helper()
	v, err := acpLookupAny(s.doc(t, r.file), acpSplitPointer(r.ptr))
	if err != nil {
		t.Fatalf("%s#%s: %v", r.file, r.ptr, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s#%s is not a schema object", r.file, r.ptr)
	}
	return m
}

func (r acpUnstableRef) child(tokens ...string) acpUnstableRef {
	return acpUnstableRef{file: r.file, ptr: r.ptr + acpJSONPointer(tokens...)}
}

// resolve follows the $ref of the schema at r, if any.
func (s *acpUnstableSuite) resolve(t testing.TB, r acpUnstableRef) (acpUnstableRef, bool) {
	t.Helper()
	ref, ok := s.node(t, r)["$ref"].(string)
	if !ok {
		return r, false
	}
	file, frag, _ := strings.Cut(ref, "#")
	if file == "" {
		file = r.file
	} else {
		file = path.Join(path.Dir(r.file), file)
	}
	return acpUnstableRef{file: file, ptr: frag}, true
}

// derefAll follows $ref chains and the non-null branch of nullable pairs.
func (s *acpUnstableSuite) derefAll(t testing.TB, r acpUnstableRef) acpUnstableRef {
	t.Helper()
	for {
		if next, ok := s.resolve(t, r); ok {
			r = next
			continue
		}
		if alt, ok := acpNullableBranch(s.node(t, r)); ok {
			r = r.child("anyOf", fmt.Sprint(alt))
			continue
		}
		return r
	}
}

// property finds the schema of a property of the object schema at r
// (following references, nullable pairs and allOf).
func (s *acpUnstableSuite) property(t testing.TB, r acpUnstableRef, name string) (acpUnstableRef, bool) {
	t.Helper()
	r = s.derefAll(t, r)
	m := s.node(t, r)
	if props, ok := m["properties"].(map[string]any); ok {
		if _, ok := props[name]; ok {
			return r.child("properties", name), true
		}
	}
	allOf, _ := m["allOf"].([]any)
	for i := range allOf {
		if p, ok := s.property(t, r.child("allOf", fmt.Sprint(i)), name); ok {
			return p, true
		}
	}
	return acpUnstableRef{}, false
}

// typeName names the type a schema location defines, or returns fallback.
func (s *acpUnstableSuite) typeName(t testing.TB, r acpUnstableRef, fallback string) string {
	if m := acpDefPtr.FindStringSubmatch(r.ptr); m != nil {
		return m[1]
	}
	if r.ptr == "" {
		doc, _ := s.doc(t, r.file).(map[string]any)
		if title, ok := doc["title"].(string); ok {
			return title
		}
	}
	return fallback
}

// ourTypes maps a type name to the URL of our schema of that name: the root
// of a file (by its title) or a shared definition (by its $defs key), in the
// suite's folder first and then in the base folder.
func (s *acpUnstableSuite) ourTypes(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(files []string) {
		for _, p := range files {
			doc, _ := s.doc(t, p).(map[string]any)
			if title, ok := doc["title"].(string); ok && out[title] == "" {
				out[title] = s.url(p)
			}
			defs, _ := doc["$defs"].(map[string]any)
			for name := range defs {
				if out[name] == "" {
					out[name] = s.url(p) + "#" + acpJSONPointer("$defs", name)
				}
			}
		}
	}
	add(s.files(t))
	if s.base != "" {
		paths, err := schema.Paths(s.base)
		if err != nil {
			t.Fatal(err)
		}
		add(paths)
	}
	return out
}
