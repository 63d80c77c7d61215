package model

import (
	"reflect"

	"github.com/agentproto/agentproto/gen/load"
)

// embedding is a struct whose schema starts its allOf with a $ref to the
// object schema of.
type embedding struct {
	t  *Type
	of *load.Schema
}

// embeddedRef is the schema an object's allOf starts with a plain $ref to,
// or nil: {"allOf": [{"$ref": "envelope.json"}, …], "properties": …}.
func embeddedRef(s *load.Schema) *load.Schema {
	if s.Ref != "" || len(s.AllOf) == 0 {
		return nil
	}
	a := s.AllOf[0]
	if a.Ref == "" || structural(a) || len(a.AllOf) > 0 || a.Target == nil {
		return nil
	}
	return a.Target
}

// embed decides which candidate structs embed the struct of their allOf's
// $ref instead of repeating its members: a message that merges a
// twenty-member envelope holds an Envelope and its own few members, and
// its codecs call the envelope's for the members it does not replace.
// Field access still reads x.Member through the embedded value.
//
// A struct embeds when the merged struct is a plain struct of this
// package that embeds nothing itself and is no union variant (its marker
// method would make the embedding struct one too), its members come first
// in the same order, at least one of them is taken over unchanged (same
// schema, same Go name, requiredness and representation), and the struct
// has at least one member of its own.
func (b *builder) embed() {
	base := map[*Type]*Type{}
	for _, e := range b.embeds {
		if bt := b.byNode[e.of]; bt != nil {
			base[e.t] = bt
		}
	}
	for _, e := range b.embeds {
		o, bt := e.t, base[e.t]
		if bt == nil || base[bt] != nil || !embeddable(o, bt) {
			continue
		}
		o.Struct.Embed, bt.Struct.Base = bt, true
		for i, bf := range bt.Struct.Fields {
			if sameField(o.Struct.Fields[i], bf) {
				o.Struct.Fields[i].Inherited = true
			}
		}
	}
}

// embeddable reports whether o can embed bt (see embed).
func embeddable(o, bt *Type) bool {
	if o == bt || o.Kind != Struct || bt.Kind != Struct || o.Struct == nil || bt.Struct == nil ||
		bt.External != nil || len(bt.Unions) > 0 || bt.OwnTag != nil || bt.Struct.Embed != nil {
		return false
	}
	of, bf := o.Struct.Fields, bt.Struct.Fields
	if len(of) < len(bf) || o.Struct.ExtraName != bt.Struct.ExtraName {
		return false
	}
	inherited := 0
	for i, f := range bf {
		if of[i].JSON != f.JSON || f.Name == bt.Name {
			return false
		}
		if sameField(of[i], f) {
			inherited++
		}
	}
	for _, f := range of {
		if f.Name == bt.Name {
			return false
		}
	}
	// A struct that only repeats the merged one keeps its own copy: it has
	// nothing to add, and embedding would only add a layer.
	return inherited > 0 && inherited < len(of)
}

// sameField reports whether an embedding struct's member is the embedded
// struct's, unchanged.
func sameField(f, bf *Field) bool {
	return f.Loc == bf.Loc && f.JSON == bf.JSON && f.Name == bf.Name && f.Required == bf.Required &&
		f.Nullable == bf.Nullable && f.Const == bf.Const && f.Forbidden == bf.Forbidden &&
		f.Indirect == bf.Indirect && sameRef(f.Type, bf.Type)
}

// sameRef reports whether two type uses are the same Go type with the same
// checks.
func sameRef(a, b *Ref) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.Builtin == b.Builtin && a.Type == b.Type && a.ElemNullable == b.ElemNullable &&
		a.Lossy == b.Lossy && reflect.DeepEqual(a.Check, b.Check) && sameRef(a.Elem, b.Elem)
}
