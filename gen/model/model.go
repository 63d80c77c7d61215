// Package model is the generator's middle stage: the Go types to emit, with
// every decision made (names, shapes, pointers, unions, checks, and which
// checks a value's known parts already pass). It is built from loaded
// schemas by Build and rendered by package emit, which reads no schema
// JSON itself and decides nothing.
package model

import (
	"encoding/json"

	"github.com/agentproto/agentproto/gen/load"
	"github.com/agentproto/agentproto/internal/textsafe"
)

// Package is one generated Go package.
type Package struct {
	Name string
	// SerdeFloats makes encoders write numbers as serde_json does (100.0)
	// rather than as JavaScript does (100).
	SerdeFloats bool
	// SerdeIntegers makes decoders read integers as serde_json does: only
	// integer literals, so 1.0, 1e2 and -0 in an integer member are decode
	// errors, rather than any number with an integral value.
	SerdeIntegers bool
	Types         []*Type // in emission order; external types are not listed
	// PartialUnions are the unions some but not all of whose variants are
	// complete, each with a per-value completeness helper, in the order
	// Lookup first needs them.
	PartialUnions []*Type
	// Warnings are located notes on what the generated code does not do
	// the way the schema reads (a union kept as raw JSON, say), one each.
	Warnings []error
}

// RawUnion is a union whose alternative cannot be decided from the JSON
// value alone (two alternatives accept the same values, or one has no
// single JSON type). The value is kept as raw JSON, byte for byte, with an
// accessor per candidate: the caller, who knows which alternative applies
// (from a sibling member such as a JSON-RPC method), decodes it as that one.
type RawUnion struct {
	// Why says why the alternative cannot be decided.
	Why        string
	Candidates []*Candidate
}

// Candidate is one alternative of a raw union.
type Candidate struct {
	// Name is the accessor suffix: AsName and FromName.
	Name string
	Type *Ref
	// Method is the JSON-RPC method the alternative belongs to (its
	// x-method annotation), when it names one.
	Method string
	Doc    string
}

// Kind is the shape of a generated type.
type Kind int

// Type kinds.
const (
	Struct  Kind = iota // a Go struct for a JSON object
	Union               // a sealed interface with one type per variant
	Enum                // a string or integer type with constants
	Named               // a defined type over a builtin, slice, map or raw JSON
	Alias               // a Go alias (type X = Y) for a schema that only refers to another, or asks what another asks (shareShapes)
	Defined             // a defined type over another struct type (type X Y), for union variants
	Scalar              // a union variant that is a defined builtin (type X int64)
)

// Type is a named Go type.
type Type struct {
	Name string
	Doc  string
	Loc  load.Loc
	Kind Kind

	// External is set when the type lives in another package (-map): it is
	// referred to, never emitted.
	External *External

	Struct *StructType
	Union  *UnionType
	Enum   *EnumType
	// RawUnion is set on a Named type over raw JSON that stands for a union
	// whose alternative cannot be decided from the value alone.
	RawUnion *RawUnion
	// Under is the underlying type of Named, Alias, Scalar and Defined
	// types.
	Under *Ref
	Check Constraints // for Named and Scalar types

	// OwnTag is set on a Defined type that exists only as a variant of a
	// tagged union whose base struct lacks the tag: its own methods write and
	// check the tag.
	OwnTag *Variant
	// Unions lists the unions this type is a variant of, with the variant.
	Unions []*Variant
	// Unchecked lists the schema's own constraints that Validate does not
	// check.
	Unchecked []string
	// Complete is set when a strict decode plus Validate proves that the
	// schema accepts a value: nothing of the type, its members or its
	// variants is unchecked, and nothing is held as raw JSON that stands
	// for constraints.
	Complete bool
	// CompleteValue, on an incomplete type of the package's Lookup, says
	// how to decide completeness for one value when only the variants of
	// the unions it holds make it incomplete; nil otherwise.
	CompleteValue *ValueCheck
	// SchemaID is the absolute $id (with pointer fragment) of the schema the
	// type was made from, when it is a document root or a $defs entry.
	SchemaID string
	// AlsoAliases, on an alias of a type of the same shape (see
	// shareShapes), are further names the type would have had, each with
	// the name it stands for: a union's Unknown variant.
	AlsoAliases [][2]string
	// AlsoConsts, on such an alias of an enum, are the names of its
	// constants, each with the constant of the named type it stands for.
	AlsoConsts [][2]string
}

// External names a type of another Go package.
type External struct {
	Path string // import path
	Name string
	// Generated is set when the package was generated from the same
	// schemas by the same rules (Mapping.Generated): the type's model here
	// is the one its code was made from, and its completeness counts.
	Generated bool
}

// RefKind is the kind of a type use.
type RefKind int

// Ref kinds.
const (
	Builtin  RefKind = iota // string, bool, float64, int32, ...
	NamedRef                // a generated (or external) named type
	Slice
	Map
	Raw // json.RawMessage
)

// Ref is a use of a type: a field's, an element's, an underlying type.
type Ref struct {
	Kind    RefKind
	Builtin string // for Builtin: string, bool, float64, int8 … uint64
	Type    *Type  // for NamedRef
	Elem    *Ref   // for Slice and Map
	// ElemNullable is set when elements may be null (they become pointers).
	ElemNullable bool
	Check        Constraints // constraints on the value (for Builtin, Slice, Map)
	// Lossy is set on raw JSON that stands for a schema with constraints
	// (several types, an undecidable union): Validate does not check it.
	Lossy bool
}

// Constraints are the checks Validate makes on a value.
type Constraints struct {
	MinLength, MaxLength *uint64
	Pattern              string
	Minimum, Maximum     *json.Number
	ExclusiveMinimum     *json.Number
	ExclusiveMaximum     *json.Number
	MultipleOf           *json.Number
	MinItems, MaxItems   *uint64
	MinProps, MaxProps   *uint64
	// Enum lists the allowed values of a builtin value, encoded as JSON.
	Enum []string
	// NotEnum lists values a builtin value must not take (a not of an
	// enum or const), encoded as JSON.
	NotEnum []string
	// Format is the string format ("date-time", "uri", …). Validate checks
	// the formats in CheckedFormats; others make a type incomplete.
	Format string
	// RawKinds are the JSON types raw JSON may have ("object", "null", …);
	// empty allows any.
	RawKinds []string
	// UniqueItems asks that no two elements of a slice be equal; it is set
	// only on slices whose elements Go compares as JSON does.
	UniqueItems bool
	// UniqueJSON asks the same of other slices (of objects, arrays, raw
	// JSON, nullable elements): elements are compared by their encodings,
	// as JSON values.
	UniqueJSON bool
	// Alts are the constraints of the alternatives of an anyOf (or, with
	// OneOfAlts, a oneOf) whose alternatives are all of this value's JSON
	// type: at least one (exactly one) must hold.
	Alts      []Constraints
	OneOfAlts bool
	// Names, on a map, are the checks every member name must pass
	// (propertyNames): a string's lengths, pattern, enum and format. A
	// name that fails them is an error of the object.
	Names *Constraints
}

// CheckedFormats are the string formats generated Validate methods check,
// the way JSON Schema validators that assert formats do, each with the
// function that checks it: "wire." names package wire's, "check." package
// pkg/wire/check's.
var CheckedFormats = map[string]string{
	"date-time": "wire.IsDateTime", "uri": "check.IsURI",
	"email": "check.IsEmail", "uuid": "check.IsUUID", "ipv4": "check.IsIPv4", "ipv6": "check.IsIPv6",
	"hostname": "check.IsHostname", "uri-reference": "check.IsURIReference", "regex": "check.IsRegex",
}

// Empty reports whether there is nothing to check.
func (c Constraints) Empty() bool {
	return c.MinLength == nil && c.MaxLength == nil && c.Pattern == "" && c.Minimum == nil &&
		c.Maximum == nil && c.ExclusiveMinimum == nil && c.ExclusiveMaximum == nil && c.MultipleOf == nil &&
		c.MinItems == nil && c.MaxItems == nil && c.MinProps == nil && c.MaxProps == nil && len(c.Enum) == 0 && len(c.NotEnum) == 0 && c.Format == "" && len(c.RawKinds) == 0 && !c.UniqueItems && !c.UniqueJSON && len(c.Alts) == 0 && c.Names == nil
}

// StructType is a JSON object.
type StructType struct {
	Fields []*Field
	// Open keeps members the schema does not define in a wire.Members field
	// named ExtraName; otherwise they are rejected (additionalProperties
	// false).
	Open      bool
	ExtraName string
	// RequiredAlternatives are sets of members of which at least one set
	// (exactly one, with OneOfRequired) must be present in full: an anyOf
	// or oneOf that only constrains presence. Validate checks it.
	RequiredAlternatives [][]string
	OneOfRequired        bool
	// Patterns are the patternProperties of a closed object: members whose
	// names match one are kept in the ExtraName field, others rejected.
	Patterns []string
	// Rules are the if/then conditions Validate checks, and NotAll the sets
	// of members that must not all be present.
	Rules  []*Rule
	NotAll [][]string
	// Dependent are the dependentRequired entries Validate checks: when
	// the member is present, the others must be.
	Dependent []load.Dependency
	// Embed, when set, is the struct type this one embeds: the schema is an
	// allOf of a $ref to Embed's schema plus members of its own. Fields
	// still lists every member in wire order; those marked Inherited are
	// Embed's, held and coded by the embedded value, and the others are
	// this type's own (some replacing a member of Embed's of the same
	// name, whose field in the embedded value is then not used).
	Embed *Type
	// Base is set on a struct another one embeds: it has the member-wise
	// methods the embedding types' codecs call.
	Base bool
	// Extra are the value schemas of the members kept in ExtraName, which
	// Validate checks: a patternProperties entry applies to every member
	// whose name matches its pattern, additionalProperties (Pattern "") to
	// the members that match none.
	Extra []*ExtraRule
	// MinProps and MaxProps bound the number of members (minProperties,
	// maxProperties); Validate checks them.
	MinProps, MaxProps *uint64
	// Names is the type every member name must have (propertyNames): a
	// string, or a named type over one, whose checks Validate makes on the
	// name of each member present.
	Names *Ref
	// Merged are unions of their own that the object merges through allOf
	// and $ref (a variant that is also one of another union's variants):
	// Validate decodes the value's encoding as each and checks it.
	Merged []*Type
	// Tuple is set on a struct that stands for a JSON array of fixed
	// positions (prefixItems, or items as an array): Fields are the
	// positions in order, their JSON names the indexes; the first MinItems
	// are required, later ones are absent when nil (and absent positions
	// end the array). Rest, when set, is the field of type slice holding
	// the elements after the positions; NoRest forbids any.
	Tuple    bool
	MinItems int
	Rest     *Field
	NoRest   bool
	// NoRestKeyword is the keyword an element after the positions of a
	// NoRest tuple breaks, as a validator blames it: "maxItems" (at the
	// array) when the schema bounds the length, draft-07's
	// "additionalItems" (at the array), else 2020-12's items "false" (at
	// the element).
	NoRestKeyword string
	// Cond is an if/then/else of the object that Validate checks through
	// types of its own: the value's encoding is decoded as If, and then
	// checked as Then when it passes Validate as If, else as Else.
	Cond *Condition
}

// Condition is an if/then/else whose subschemas are types of their own,
// unexported (they are no part of the package's API). Then or Else may be
// nil. Types lists every type made for it, nested ones included.
type Condition struct {
	If, Then, Else *Type
	Types          []*Type
}

// ExtraRule is the schema of the members of an object that its
// properties do not name.
type ExtraRule struct {
	// Pattern is the patternProperties regular expression, "" for
	// additionalProperties.
	Pattern string
	// Type is the members' type; nil when the schema allows any value.
	Type     *Ref
	Nullable bool
}

// Rule is an if/then condition on an object: when member IfKey has one of
// IfValues (JSON literals), the ThenRequired members must be present and
// each ThenConst member, when present, must have its value.
type Rule struct {
	IfKey        string
	IfValues     []string
	ThenRequired []string
	ThenConst    []MemberValue
}

// MemberValue is a member name with a JSON literal.
type MemberValue struct {
	Member string
	Value  string
}

// Field is a member of a struct.
type Field struct {
	Name     string // Go name
	JSON     string // member name on the wire
	Doc      string
	Loc      load.Loc
	Type     *Ref
	Required bool
	Nullable bool
	// Const, when set, is the member's only allowed value as JSON: the
	// field is not stored; encoding always writes it, decoding checks it.
	Const string
	// ConstCheck, for a Const that is a string, are the other constraints
	// the member's schema puts on a string (lengths, pattern, format,
	// values it must not take): a value other than Const may break them
	// too, and a decoder explaining a value (wire.Decoder.Collect)
	// reports those beside the const.
	ConstCheck Constraints
	// ConstCheckPartial is set when the schemas hold more than
	// ConstCheck can (a second pattern or format): a decoder explaining
	// a value then says its list may not be whole.
	ConstCheckPartial bool
	// Forbidden members (schema false) are not stored; decoding rejects
	// them.
	Forbidden bool
	// Indirect makes a required member a pointer: its type contains the
	// member's struct again through required members, which Go cannot
	// hold by value. Validate reports it when nil.
	Indirect bool
	// Inherited marks a member of an embedding struct that is the
	// embedded struct's field of the same name, reached through it.
	Inherited bool
	// NameFits says that the member's name is sure to pass the checks of
	// its struct's propertyNames (StructType.Names): its lengths, pattern
	// and enum accept it, and there is no format, which is left to
	// Validate. Validate checks the name of a member that does not fit.
	NameFits bool
}

// Repr is how a field is held in Go.
type Repr int

// Field representations.
const (
	Value   Repr = iota // T
	Pointer             // *T: absent (or null, for required nullable) is nil
	Nilable             // slice, map, raw JSON or union: nil is absent (or null)
	Opt                 // wire.Opt[T]: absent, null and a value
	NoField             // a const: not stored
)

// Repr decides how the field is held.
func (f *Field) Repr() Repr {
	if f.Const != "" || f.Forbidden {
		return NoField
	}
	nilable := f.Type.Nilable()
	if f.Type.IsRaw() {
		// Raw JSON keeps a null as the bytes "null": nil is absent.
		return Nilable
	}
	switch {
	case f.Required && !f.Nullable && f.Indirect:
		return Pointer
	case f.Required && !f.Nullable:
		return Value
	case !f.Required && f.Nullable:
		return Opt
	case nilable:
		return Nilable
	default:
		return Pointer
	}
}

// Nilable reports whether the Go type has a nil that can stand for absent.
func (r *Ref) Nilable() bool {
	switch r.Kind {
	case Slice, Map, Raw:
		return true
	case NamedRef:
		switch r.Type.Kind {
		case Union:
			return true
		case Named, Alias:
			return r.Type.Under.Nilable()
		}
	}
	return false
}

// IsRaw reports whether the type is raw JSON (directly or through named
// types), which holds null itself.
func (r *Ref) IsRaw() bool {
	switch r.Kind {
	case Raw:
		return true
	case NamedRef:
		if r.Type.Kind == Named || r.Type.Kind == Alias {
			return r.Type.Under != nil && r.Type.Under.IsRaw()
		}
	}
	return false
}

// UnionType is a sealed interface.
type UnionType struct {
	// Tag is the discriminating member; "" for untagged unions.
	Tag string
	// IntTag is set when the tag's values are integers (JSON-RPC errors
	// told apart by a const code): each variant's Tag, and the Unknown
	// variant's, is the value's decimal text.
	IntTag   bool
	Variants []*Variant
	// Default is the variant used when the tag is absent.
	Default *Variant
	// DefaultTakesOthers is set when the default variant defines the tag
	// member without fixing its value: a tag no other variant lists
	// decodes to the default, not to the Unknown variant.
	DefaultTakesOthers bool
	// DefaultTag, when set, is the one value the default variant's schema
	// allows its optional tag member (absent means that value, as MCP's
	// form elicitation reads): a value with that tag decodes to the
	// default too, whose struct keeps the member as it came.
	DefaultTag string
	// Unknown is the Go name of the variant that keeps unknown tags.
	Unknown string
	// Open is set when the schema accepts tags it does not list (a
	// catch-all variant); otherwise Validate reports unknown tags.
	Open bool
	// OpenAsks, on an Open union, lists what the schema asks of a value
	// whose tag no variant lists beyond what decoding it as the Unknown
	// variant ensures (an object whose tag member is a string that no
	// variant lists): a member the catch-all requires, a pattern on the
	// tag, a catch-all that also takes a listed tag. Validate checks none
	// of it. Empty when it asks nothing more: decoding such a value then
	// proves it, and the union can be complete.
	OpenAsks []string
	// Other, on an Open union whose one catch-all alternative asks more
	// than that, is the catch-all as a type of its own: a struct made from
	// its schema, unexported (no part of the package's API), with the tag
	// member as a string constrained as the schema says. The Unknown
	// variant still keeps the raw JSON; its check decodes that as Other and
	// checks it, so what Other checks leaves OpenAsks, and completeness
	// counts Other as it counts a variant. On a closed tagged union whose
	// own schema gives every variant members (properties, required),
	// Other is a struct of those members alone: the check of the Unknown
	// variant, which fails the tag, judges them too. OtherTypes lists
	// every unexported type made for it, Other first.
	Other      *Type
	OtherTypes []*Type
	// By says how an untagged union picks its variant.
	By UntaggedRule
	// Fallback, in an untagged union whose last alternative accepts any
	// value, is the variant (raw JSON) for values no other variant takes.
	Fallback *Variant
	// Overlap, on a oneOf whose only overlap is objects that may fit
	// several object variants, is its unchecked-list entry. When every
	// object variant is complete, OnlyOne is set instead: Validate checks
	// that a value fits no other object variant, and the entry goes.
	Overlap string
	OnlyOne bool
	// NoTrial is set on a union that contains itself: an object with the
	// required members of several variants is the first of them, instead of
	// being decoded as each in turn (which would repeat at every level).
	NoTrial bool
}

// UntaggedRule is how an untagged union is decided.
type UntaggedRule int

// Untagged union rules.
const (
	ByTag  UntaggedRule = iota // tagged
	ByKind                     // by the JSON kind of the value
	ByKeys                     // objects, by which required members are present
)

// TagJSON is the JSON literal of the tag value tag of u: a string, or
// with IntTag the integer as written.
func (u *UnionType) TagJSON(tag string) string {
	if u.IntTag {
		return tag
	}
	return textsafe.QuoteJSON(tag)
}

// Variant is one member of a union.
type Variant struct {
	Union *Type
	Tag   string // the tag value (tagged unions)
	Type  *Type
	// TagInStruct is set when the variant's struct has the tag as a const
	// field of its own, which it writes and checks itself.
	TagInStruct bool
	// JSONKind is the kind of value of a ByKind variant: null, boolean,
	// number, integer, string, array or object.
	JSONKind string
	// Keys are the required members of a ByKeys variant, which decide it.
	Keys []string
	// ItemKind and ItemKeys decide among several array variants by the
	// first element: its JSON kind and, for objects, its required members.
	// An empty array is the first array variant.
	ItemKind string
	ItemKeys []string
	Doc      string
}
