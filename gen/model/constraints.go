package model

import (
	"encoding/json"
	"math"
	"math/big"

	"github.com/agentproto/agentproto/gen/load"
)

var formatInts = map[string]string{
	"int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
	"uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
}

// intType picks the Go integer type from a format, or else from the bounds.
func intType(s *load.Schema) string {
	if g, ok := formatInts[s.Format]; ok {
		return g
	}
	lo, hi := Bound(s.Minimum, s.ExclusiveMinimum, 1), Bound(s.Maximum, s.ExclusiveMaximum, -1)
	fits := func(min, max *big.Int) bool {
		return lo != nil && hi != nil && lo.Cmp(min) >= 0 && hi.Cmp(max) <= 0
	}
	switch {
	case lo != nil && lo.Sign() >= 0:
		if fits(big.NewInt(0), big.NewInt(math.MaxUint32)) {
			return "uint32"
		}
		return "uint64"
	case fits(big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)):
		return "int32"
	}
	return "int64"
}

// Bound converts an inclusive or exclusive bound to an inclusive integer
// bound (dir +1 for a minimum, -1 for a maximum).
func Bound(incl, excl *json.Number, dir int) *big.Int {
	var out *big.Int
	if incl != nil {
		if r, ok := new(big.Rat).SetString(string(*incl)); ok {
			out = ceilFloor(r, dir)
		}
	}
	if excl != nil {
		if r, ok := new(big.Rat).SetString(string(*excl)); ok {
			v := ceilFloor(r, dir)
			if r.IsInt() {
				v.Add(v, big.NewInt(int64(dir)))
			}
			if out == nil || (dir > 0 && v.Cmp(out) > 0) || (dir < 0 && v.Cmp(out) < 0) {
				out = v
			}
		}
	}
	return out
}

func ceilFloor(r *big.Rat, dir int) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 && ((dir > 0 && r.Sign() > 0) || (dir < 0 && r.Sign() < 0)) {
		q.Add(q, big.NewInt(int64(dir)))
	}
	return q
}

// notValues returns the values a scalar schema's not excludes, encoded as
// JSON, when its not is only an enum or a const (a catch-all variant's
// tag: any value but the listed ones); nil otherwise.
func notValues(s *load.Schema) []string {
	n := s.Not
	if n == nil || !(s.HasType("string") || s.HasType("integer")) || len(s.Type) != 1 {
		return nil
	}
	// Only enum and const, with annotations.
	if n.Bool != nil || (len(n.Enum) == 0 && !n.HasConst) {
		return nil
	}
	for _, k := range n.Keywords {
		switch k {
		case "enum", "const", "description", "title", "$comment", "examples", "deprecated":
		default:
			return nil
		}
	}
	var out []string
	for _, v := range n.Enum {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		out = append(out, string(raw))
	}
	if n.HasConst {
		raw, err := json.Marshal(n.Const)
		if err != nil {
			return nil
		}
		out = append(out, string(raw))
	}
	return out
}

func constraints(s *load.Schema) Constraints {
	c := Constraints{MinLength: s.MinLength, MaxLength: s.MaxLength, Pattern: s.Pattern, Minimum: s.Minimum,
		Maximum: s.Maximum, ExclusiveMinimum: s.ExclusiveMinimum, ExclusiveMaximum: s.ExclusiveMaximum,
		MultipleOf: s.MultipleOf, MinItems: s.MinItems, MaxItems: s.MaxItems, MinProps: s.MinProperties, MaxProps: s.MaxProperties}
	if s.HasType("string") {
		c.Format = s.Format
	}
	for _, v := range s.Enum {
		raw, _ := json.Marshal(v)
		c.Enum = append(c.Enum, string(raw))
	}
	if s.HasConst {
		raw, _ := json.Marshal(s.Const)
		c.Enum = []string{string(raw)}
	}
	c.NotEnum = notValues(s)
	return c
}
