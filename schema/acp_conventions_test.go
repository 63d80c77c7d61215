// The ACP v1 schema files themselves: they compile offline, follow the
// conventions of schema/README.md (identifiers, names, descriptions,
// keywords, integer ranges, tagged unions) and their examples pass.

package schema_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Every schema file compiles with schema.NewCompiler, and so does every
// shared definition, which proves every $ref resolves offline.
func TestACPSchemasCompile(t *testing.T) {
	set := acpOurs(t)
	n := 0
	for _, file := range acpSchemaFiles(t) {
		if _, err := set.get(acpURL(file)); err != nil {
			t.Error(err)
			continue
		}
		n++
		doc, _ := acpDoc(t, file).(map[string]any)
		defs, _ := doc["$defs"].(map[string]any)
		for _, name := range acpSortedKeys(defs) {
			if _, err := set.get(acpURL(file) + "#" + acpJSONPointer("$defs", name)); err != nil {
				t.Error(err)
			}
			n++
		}
	}
	t.Logf("compiled %d schemas and definitions", n)
}

// The files follow schema/README.md: identifiers, names, descriptions,
// keywords, integer ranges and the shape of tagged unions.
func TestACPSchemaConventions(t *testing.T) {
	titles := map[string]string{}
	for _, file := range acpSchemaFiles(t) {
		doc, ok := acpDoc(t, file).(map[string]any)
		if !ok {
			t.Errorf("%s: root is not an object", file)
			continue
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v, want draft 2020-12", file, doc["$schema"])
		}
		if doc["$id"] != acpURL(file) {
			t.Errorf("%s: $id is %v, want %s", file, doc["$id"], acpURL(file))
		}
		title, _ := doc["title"].(string)
		if !acpPascalCase.MatchString(title) {
			t.Errorf("%s: root title %q is not PascalCase", file, title)
		}
		if prev, dup := titles[title]; dup {
			t.Errorf("%s: root title %q is also the title of %s", file, title, prev)
		}
		titles[title] = file
		acpWalkSchema(doc, "", acpRoleRoot, func(ptr string, m map[string]any, role acpSchemaRole) {
			acpCheckConventions(t, file, ptr, m, role)
		})
	}
	// $defs keys and root titles share one Go namespace.
	for _, file := range acpSchemaFiles(t) {
		doc, _ := acpDoc(t, file).(map[string]any)
		defs, _ := doc["$defs"].(map[string]any)
		for name := range defs {
			if !acpPascalCase.MatchString(name) {
				t.Errorf("%s: $defs key %q is not PascalCase", file, name)
			}
			if other, dup := titles[name]; dup {
				t.Errorf("%s: $defs key %q is also the root title of %s", file, name, other)
			}
		}
	}
}

func acpCheckConventions(t *testing.T, file, ptr string, m map[string]any, role acpSchemaRole) {
	t.Helper()
	at := file + "#" + ptr
	for k := range m {
		if !acpSchemaKeywords[k] {
			t.Errorf("%s: keyword %q is not draft 2020-12 (only x-go-name is allowed besides)", at, k)
		}
	}
	if ref, ok := m["$ref"].(string); ok && strings.Contains(ref, "://") {
		t.Errorf("%s: $ref %q must be relative", at, ref)
	}
	desc, _ := m["description"].(string)
	needsDesc := role == acpRoleRoot || role == acpRoleDef || role == acpRoleProperty
	if role == acpRoleVariant {
		// The null branch and the bare reference of a nullable pair need none.
		_, bareRef := m["$ref"]
		needsDesc = !(len(m) == 1 && (bareRef || m["type"] == "null"))
	}
	if needsDesc && strings.TrimSpace(desc) == "" {
		t.Errorf("%s: missing description", at)
	}
	types := acpTypeList(m)
	if slices.Contains(types, "integer") {
		if _, ok := m["minimum"]; !ok {
			t.Errorf("%s: integer without minimum", at)
		}
		if _, ok := m["maximum"]; !ok {
			t.Errorf("%s: integer without maximum", at)
		}
	}
	if _, ok := m["format"]; ok && (slices.Contains(types, "integer") || slices.Contains(types, "number")) {
		t.Errorf("%s: numbers carry their range in minimum/maximum, not in format", at)
	}
	if variants, ok := m["oneOf"].([]any); ok {
		acpCheckUnion(t, at, variants)
	}
}

// acpUnionShape describes a tagged union read from a oneOf.
type acpUnionShape struct {
	tag    string
	consts []string
}

// acpReadUnion returns the shape of a oneOf whose variants fix a tag with const,
// or ok=false when the oneOf is not a tagged union.
func acpReadUnion(variants []any) (u acpUnionShape, ok bool) {
	for _, v := range variants {
		m, _ := v.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			pm, _ := p.(map[string]any)
			if c, isStr := pm["const"].(string); isStr {
				if u.tag != "" && u.tag != name {
					return u, false
				}
				u.tag = name
				u.consts = append(u.consts, c)
			}
		}
	}
	return u, u.tag != ""
}

func acpCheckUnion(t *testing.T, at string, variants []any) {
	t.Helper()
	u, ok := acpReadUnion(variants)
	if !ok {
		return
	}
	seen := map[string]bool{}
	for _, c := range u.consts {
		if seen[c] {
			t.Errorf("%s: tag %q used by two variants", at, c)
		}
		seen[c] = true
	}
	want := append([]string(nil), u.consts...)
	sort.Strings(want)
	var defaults, catchAlls int
	for i, v := range variants {
		m, _ := v.(map[string]any)
		vat := fmt.Sprintf("%s/oneOf/%d", at, i)
		title, _ := m["title"].(string)
		if !acpPascalCase.MatchString(title) {
			t.Errorf("%s: variant title %q is not a PascalCase Go name", vat, title)
		}
		required := acpStringList(m["required"])
		props, _ := m["properties"].(map[string]any)
		tagSchema, _ := props[u.tag].(map[string]any)
		if _, hasConst := tagSchema["const"]; hasConst {
			if !slices.Contains(required, u.tag) {
				t.Errorf("%s: variant with a %q const must require it", vat, u.tag)
			}
			continue
		}
		if slices.Contains(required, u.tag) {
			// The catch-all of an open union: any tag but the known ones.
			catchAlls++
			if !strings.HasPrefix(title, "Unknown") {
				t.Errorf("%s: catch-all variant must be titled Unknown…, got %q", vat, title)
			}
			if got := acpNotEnum(tagSchema); !slices.Equal(got, want) {
				t.Errorf("%s: catch-all must exclude exactly the known tags %v, excludes %v", vat, want, got)
			}
			continue
		}
		// The default variant, used when the tag is absent: its tag schema
		// excludes the known tags ({"not": {"enum": [...]}}) or, in a union
		// with a catch-all, any tag ({"not": {}}).
		defaults++
		not, _ := tagSchema["not"].(map[string]any)
		switch got := acpNotEnum(tagSchema); {
		case not != nil && len(not) == 0:
		case !slices.Equal(got, want):
			t.Errorf("%s: default variant must exclude exactly the known tags %v, excludes %v", vat, want, got)
		}
	}
	if defaults > 1 || catchAlls > 1 {
		t.Errorf("%s: at most one default and one catch-all variant, got %d and %d", at, defaults, catchAlls)
	}
}

func acpNotEnum(m map[string]any) []string {
	not, _ := m["not"].(map[string]any)
	if not == nil {
		return nil
	}
	out := acpStringList(not["enum"])
	sort.Strings(out)
	return out
}

func acpStringList(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Every value under "examples" in our schemas is valid under the schema it
// illustrates.
func TestACPSchemaExamplesValid(t *testing.T) {
	set := acpOurs(t)
	n := 0
	for _, file := range acpSchemaFiles(t) {
		acpWalkSchema(acpDoc(t, file), "", acpRoleRoot, func(ptr string, m map[string]any, _ acpSchemaRole) {
			examples, _ := m["examples"].([]any)
			for i, ex := range examples {
				n++
				if err := set.validate(t, acpURL(file)+"#"+ptr, ex); err != nil {
					t.Errorf("%s#%s: example %d is invalid: %s", file, ptr, i, acpFirstLine(err))
				}
			}
		})
	}
	if n < 50 {
		t.Errorf("only %d examples in the ACP schemas; every method file should have one", n)
	}
	t.Logf("%d examples valid", n)
}
