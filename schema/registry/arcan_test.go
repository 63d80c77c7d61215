package registry_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentproto/agentproto/schema"
	"github.com/agentproto/agentproto/schema/registry"
)

// TestArcanEmitShapes: the emit shapes come from the schemas' annotations,
// through $refs across files and through Options (anyOf [T, null]).
func TestArcanEmitShapes(t *testing.T) {
	r, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	tab := r.Default("arcan").Arcan()
	finished := tab.Event("run_finished").Shape
	if finished == nil || len(finished.Always) != 1 || finished.Always[0] != (registry.EmitMember{Name: "final_answer", Nullable: true}) {
		t.Fatalf("run_finished always writes %+v, want final_answer (nullable)", finished)
	}
	if len(finished.Omitted) != 1 || finished.Omitted[0] != "usage" {
		t.Errorf("run_finished omits %v, want usage", finished.Omitted)
	}
	var usage *registry.EmitShape
	for _, c := range finished.Members {
		if c.Name == "usage" {
			usage = c.Shape
		}
	}
	if usage == nil || len(usage.Always) != 4 || usage.Always[0].Nullable {
		t.Errorf("run_finished usage (through anyOf and common.json) always writes %+v, want the four counters, not nullable", usage)
	}
	call := tab.Event("tool_call_requested").Shape
	if call == nil || len(call.Members) != 1 || call.Members[0].Name != "call" || len(call.Members[0].Shape.Always) != 1 || call.Members[0].Shape.Always[0].Name != "input" {
		t.Errorf("tool_call_requested: %+v, want call.input always written", call)
	}
	if s := tab.Event("text_delta").Shape; s != nil {
		t.Errorf("text_delta has an emit shape %+v; Arcan writes nothing its reader does not require there", s)
	}
	if tab.StoreShape == nil || len(tab.StoreShape.Always) != 1 || tab.StoreShape.Always[0].Name != "parent_id" {
		t.Errorf("store record: %+v, want parent_id always written", tab.StoreShape)
	}
}

// TestArcanEmitShapeErrors: an annotation that names no property, or is not
// a list of names, or a $ref that names nothing, fails loading.
func TestArcanEmitShapeErrors(t *testing.T) {
	versions := `{"versions": [{"protocol": "arcan", "name": "v1", "folder": "arcan/v1", "package": "example.test/arcan", "title": "Arcan", "stable": true, "default": true}]}`
	dispatch := `{"protocol": "arcan", "version": "v1", "events": [{"part_type": "e", "schema": "e.json"}], "store_record": "r.json"}`
	record := `{"type": "object", "properties": {"event": {"$ref": "e.json"}}}`
	for schemaText, want := range map[string]string{
		`{"type": "object", "properties": {"a": {}}, "x-always-emitted": ["b"]}`:   `names "b", which is not a property`,
		`{"type": "object", "properties": {"a": {}}, "x-omitted-when-none": "a"}`:  "must be a list of member names",
		`{"type": "object", "properties": {"a": {"$ref": "#/$defs/Nothing"}}}`:     "names nothing",
		`{"type": "object", "properties": {"a": {"$ref": "other.json#/$defs/X"}}}`: "other.json",
	} {
		fsys := fstest.MapFS{
			schema.VersionsFile:      {Data: []byte(versions)},
			"arcan/v1/dispatch.json": {Data: []byte(dispatch)},
			"arcan/v1/e.json":        {Data: []byte(schemaText)},
			"arcan/v1/r.json":        {Data: []byte(record)},
		}
		_, err := registry.Load(fsys, schema.IDPrefix)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", schemaText, err, want)
		}
	}
}
