package model_test

import "testing"

// TestNameFits: the model decides which member names are sure to pass an
// object's propertyNames, so that Validate checks only the others; a name
// the pattern, lengths or enum reject, or one with a format, is checked.
func TestNameFits(t *testing.T) {
	p := build(t, `{"$defs":{
		"Pattern":{"type":"object","propertyNames":{"pattern":"^[a-z]+$","maxLength":5},
			"properties":{"ok":{"type":"string"},"Bad":{"type":"string"},"toolong":{"type":"string"}}},
		"Format":{"type":"object","propertyNames":{"format":"email"},"properties":{"a":{"type":"string"}}},
		"Listed":{"type":"object","propertyNames":{"$ref":"#/$defs/Key"},"properties":{"red":{"type":"string"},"blue":{"type":"string"}}},
		"Key":{"enum":["red","green"]}}}`)
	for typ, want := range map[string]map[string]bool{
		"Pattern": {"ok": true, "Bad": false, "toolong": false},
		"Format":  {"a": false},
		"Listed":  {"red": true, "blue": false},
	} {
		st := typeNamed(t, p, typ).Struct
		if st == nil || st.Names == nil {
			t.Fatalf("%s: no propertyNames type", typ)
		}
		for _, f := range st.Fields {
			if w, ok := want[f.JSON]; ok && f.NameFits != w {
				t.Errorf("%s.%s: NameFits = %v, want %v", typ, f.JSON, f.NameFits, w)
			}
		}
	}
}
