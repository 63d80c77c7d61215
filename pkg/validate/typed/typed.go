// Package typed runs wire messages through agentproto's generated Go types
// (the package of every version in the registry; Lookup is generated from
// it). The validator uses it twice:
// as its fast path, since a strict typed decode plus the generated Validate
// is far cheaper than a general schema validator and valid messages are the
// overwhelming majority; and for --roundtrip, to tell a Go implementer
// whether the types keep their traffic intact.
package typed

//go:generate go run ../../../internal/tablegen -pkg typed -codecs -o lookup_gen.go

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"

	"github.com/agentproto/agentproto/pkg/wire"
)

// Checker is the validator's fast path. The zero value is ready to use and
// safe for concurrent use.
type Checker struct{}

// Check reports whether the value at pointer in line is certainly valid
// against the schema schemaID: its generated type is complete (its Validate
// checks every constraint of the schema), it decodes strictly, and Validate
// finds nothing. Any doubt is false, and the general validator decides.
func (c Checker) Check(schemaID, pointer string, line []byte) bool {
	valid, _ := c.CheckKnown(schemaID, pointer, line)
	return valid
}

// CheckKnown is Check, and for a valid value also whether every member of
// every object in it is one its Go type defines: the decoder kept no
// unknown member aside and read no part of it as raw bytes. Such a value
// has no misspelt member for the validator to look for.
func (c Checker) CheckKnown(schemaID, pointer string, line []byte) (valid, known bool) {
	return c.CheckKnownDecoder(wire.NewDecoder(line), schemaID, pointer)
}

// CheckKnownDecoder is CheckKnown reading the line from d, which the
// caller has reset over it (wire.Decoder.Reset) and may have told where
// the line's arrays and objects end (wire.Decoder.SetEnds), so that the
// values the types keep raw or skip are stepped over rather than read
// again. A caller that checks many values reuses one decoder for them.
func (Checker) CheckKnownDecoder(d *wire.Decoder, schemaID, pointer string) (valid, known bool) {
	c, ok := Lookup(schemaID)
	if !ok {
		return false, false
	}
	return c.CheckAt(d, pointer)
}

// Codec returns the generated codec of the schema with $id schemaID, so
// that a caller checking many values of one schema looks it up once.
func (Checker) Codec(schemaID string) (wire.Codec, bool) { return Lookup(schemaID) }

// Roundtrip decodes the value at pointer in line into the generated type of
// schemaID, encodes it again and returns the differences, one sentence each
// with its JSON pointer (relative to the line). An error means the value did
// not decode.
func Roundtrip(schemaID, pointer string, line []byte) ([]string, error) {
	c, ok := Lookup(schemaID)
	if !ok {
		return nil, fmt.Errorf("no generated Go type for %s", schemaID)
	}
	d := wire.NewDecoder(append([]byte(nil), line...))
	found, err := d.Seek(pointer)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s is absent", pointer)
	}
	raw, err := d.Raw()
	if err != nil {
		return nil, err
	}
	v, err := c.DecodeBytes(raw)
	if err != nil {
		return nil, fmt.Errorf("the Go type %s does not decode it: %w", c.Name, err)
	}
	out, err := c.EncodeBytes(v)
	if err != nil {
		return nil, fmt.Errorf("the Go type %s does not encode it: %w", c.Name, err)
	}
	a, err := parse(raw)
	if err != nil {
		return nil, err
	}
	b, err := parse(out)
	if err != nil {
		return nil, fmt.Errorf("the Go type %s wrote invalid JSON: %w", c.Name, err)
	}
	var diffs []string
	diff(pointer, a, b, &diffs)
	return diffs, nil
}

func parse(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// diff appends a sentence for every place where the re-encoded value b
// differs from the sent value a. Numbers are compared by value (1.0 is 1).
func diff(p string, a, b any, out *[]string) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: an object became %s", at(p), wire.Describe(b)))
			return
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, dup := x[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			q := p + "/" + wire.EscapePointer(k)
			xv, inA := x[k]
			yv, inB := y[k]
			switch {
			case !inB:
				*out = append(*out, fmt.Sprintf("%s: the member was dropped", q))
			case !inA:
				*out = append(*out, fmt.Sprintf("%s: a member was added (%s)", q, short(yv)))
			default:
				diff(q, xv, yv, out)
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: an array became %s", at(p), wire.Describe(b)))
			return
		}
		if len(x) != len(y) {
			*out = append(*out, fmt.Sprintf("%s: %d elements became %d", at(p), len(x), len(y)))
			return
		}
		for i := range x {
			diff(fmt.Sprintf("%s/%d", p, i), x[i], y[i], out)
		}
	case json.Number:
		y, ok := b.(json.Number)
		ra, ok1 := new(big.Rat).SetString(string(x))
		var rb *big.Rat
		ok2 := false
		if ok {
			rb, ok2 = new(big.Rat).SetString(string(y))
		}
		if !ok || !ok1 || !ok2 || ra.Cmp(rb) != 0 {
			*out = append(*out, fmt.Sprintf("%s: %s became %s", at(p), x, short(b)))
		}
	default:
		if a != b {
			*out = append(*out, fmt.Sprintf("%s: %s became %s", at(p), short(a), short(b)))
		}
	}
}

func at(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}
