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
