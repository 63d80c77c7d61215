package load_test

import (
	"testing"

	"github.com/agentproto/agentproto/gen/emit"
	"github.com/agentproto/agentproto/gen/load"
	"github.com/agentproto/agentproto/gen/model"
)

// FuzzLoad: no schema input makes the generator panic; it either renders
// a package or returns an error.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		`{"title":"T","type":"object","properties":{"a":{"type":["string","null"]},"b":{"$ref":"#/$defs/B"}},"required":["a"],"$defs":{"B":{"oneOf":[{"type":"object","properties":{"k":{"const":"x"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"y"}},"required":["k"]}]}}}`,
		`{"$defs":{"A":{"$ref":"#/$defs/A"}}}`,
		`{"title":"L","type":"array","items":{"$ref":"#"}}`,
		`{"anyOf":[{"type":"null"},{"type":"integer"},{"type":"string"}],"title":"Id"}`,
		`{"title":"E","enum":["a","b"]}`,
		`{"allOf":[{"$ref":"#"}],"title":"Loop"}`,
		`true`,
		`{"$defs":{"B":{"type":"object","properties":{"id":{"type":"string"},"t":{"type":"string"}},"required":["id"]},"M":{"type":"object","allOf":[{"$ref":"#/$defs/B"}],"properties":{"t":{"const":"m"},"n":{"type":"integer"}},"required":["t"]}}}`,
		`{"title":"C","type":"object","properties":{"k":{"type":"string"},"v":{"type":"number"}},"if":{"properties":{"k":{"const":"p"}},"required":["k"]},"then":{"anyOf":[{"required":["v"]},{"properties":{"w":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},"required":["w"]}]},"else":{"properties":{"v":{"maximum":3}}}}`,
		`{"title":"P","type":"object","properties":{"a":{"type":"string"}},"patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":{"type":"array","items":{"type":"object"},"uniqueItems":true},"propertyNames":{"maxLength":4},"minProperties":1}`,
		`{"title":"O","oneOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"$ref":"#"}},"required":["b"]}]}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","id":"https://fuzz.test/d4.json","title":"D","type":"object","properties":{"p":{"type":"integer","minimum":0,"exclusiveMinimum":true},"m":{"$ref":"http://json-schema.org/draft-04/schema#/properties/title"}},"dependencies":{"p":["q"]},"definitions":{"X":{"allOf":[{"$ref":"#/definitions/Y"},{"default":0}]},"Y":{"type":"integer"}}}`,
		`{"title":"G","type":"object","properties":{"a":{"$ref":"#/$defs/group/add/dev"},"b":{"$ref":"#thing"},"c":{"$ref":"#/$defs/group/name"}},"$defs":{"group":{"add":{"dev":{"type":"boolean"}},"name":"x"},"T":{"$anchor":"thing","type":"string"},"schema":{"type":"string"},"Schema":{"title":"schema","type":"integer"}}}`,
		`{"title":"B","type":"object","required":["k"],"properties":{"k":{"enum":["a","b"]}},"allOf":[{"if":{"properties":{"k":{"const":"a"}},"required":["k"]},"then":{"properties":{"k":{"const":"a"},"x":{"type":"string"}}}},{"if":{"not":{"properties":{"k":{"enum":["a"]}},"required":["k"]}},"then":{"properties":{"y":{"type":"integer"}}}}]}`,
		`{"title":"W","anyOf":[{"enum":[false,"eval",0,null]},{"type":"string","pattern":"^x"},{"$ref":"#/$defs/F"},{"type":["null","boolean"]},{"anyOf":[{"enum":[true]},{"type":"object","required":["t"],"properties":{"t":{"const":"m"}}},{"type":"object","required":["t"],"properties":{"t":{"const":"n"}}}]}],"$defs":{"F":{"instanceof":"Function"}}}`,
		`{"title":"N","oneOf":[{"type":"object","required":["in"],"properties":{"in":{"enum":["body"]}}},{"type":"object","required":["in","t"],"oneOf":[{"properties":{"in":{"enum":["q"]}},"additionalProperties":false},{"properties":{"in":{"enum":["p"]},"t":{}},"additionalProperties":false}]},{"oneOf":[{"type":"object","required":["r"],"additionalProperties":false,"properties":{"r":{}}},{"type":"object","additionalProperties":false,"patternProperties":{"^x-":{}}}]}]}`,
		`{"$defs":{"AO":{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false},"BO":{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false},"AR":{"anyOf":[{"type":"string","enum":["on","off"]},{"type":"object","properties":{"o":{"$ref":"#/$defs/AO"},"m":{"description":"M.","anyOf":[{"type":"number","description":"N."},{"$ref":"#/$defs/BO"}]}}}]},"BR":{"anyOf":[{"type":"string","enum":["on","off"]},{"type":"object","properties":{"o":{"$ref":"#/$defs/BO"},"m":{"description":"M.","anyOf":[{"type":"number","description":"N."},{"$ref":"#/$defs/AO"}]}}}]},"AL":{"type":"object","properties":{"n":{"$ref":"#/$defs/BL"}}},"BL":{"type":"object","properties":{"n":{"$ref":"#/$defs/AL"}}}}}`,
		`{"title":"U","oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},{"type":"object","properties":{"kind":{"type":"string","pattern":"^x-","not":{"enum":["a"]}},"ts":{"type":"string","format":"date-time"}},"required":["kind","ts"]}],"$defs":{"M":{"type":"object","propertyNames":{"pattern":"^[a-z]+$","maxLength":8},"additionalProperties":{"type":"number"}}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","title":"S","type":["object","boolean"],"properties":{"items":{"anyOf":[{"$ref":"#"},{"type":"array","items":{"$ref":"#"}}]},"r":{"oneOf":[{"type":"array","items":[{"type":"string"}],"minItems":1,"maxItems":1},{"type":"array","items":[{"type":"string"},{"type":"object"}],"minItems":2,"maxItems":2}]},"c":{"anyOf":[{"$ref":"#/definitions/E"},{"type":"string","pattern":"^#"},{"enum":["red"]}]}},"definitions":{"E":{"anyOf":[{"enum":["a","b"]},{"enum":["c"]}]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := load.New()
		if _, err := l.AddBytes("fuzz.json", "https://fuzz.test/schema.json", data, true); err != nil {
			return
		}
		g, err := l.Graph()
		if err != nil {
			return
		}
		pkg, err := model.Build(g, model.Options{Package: "fuzz"})
		if err != nil {
			return
		}
		_, _ = emit.Render(pkg, nil)
	})
}
