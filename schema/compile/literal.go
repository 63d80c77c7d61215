package compile

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/message"
)

// IntegerLiteral is the keyword that asks for a number written as an
// integer literal: "x-integer-literal": true on an integer schema. JSON
// Schema's "integer" counts 1.0 and 1e2 as integers; a receiver built on
// Rust's serde_json reads them (and -0) as floats and rejects them for a
// u32 or u64, so the schemas of serde peers (Arcan) carry this keyword on
// every integer member. The instance must be parsed with its numbers kept
// as json.Number, as the validator does, so that their text is known.
const IntegerLiteral = "x-integer-literal"

// registerIntegerLiteral makes c assert IntegerLiteral wherever a schema
// uses it.
func registerIntegerLiteral(c *jsonschema.Compiler) error {
	v, err := integerLiteralVocabulary()
	if err != nil {
		return err
	}
	c.RegisterVocabulary(v)
	c.AssertVocabs()
	return nil
}

// integerLiteralVocabulary is the vocabulary of IntegerLiteral.
func integerLiteralVocabulary() (*jsonschema.Vocabulary, error) {
	const url = "https://agentproto.dev/schema/vocab/integer-literal"
	meta, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"properties": {"` + IntegerLiteral + `": {"type": "boolean"}}}`))
	if err != nil {
		return nil, fmt.Errorf("compile: the %s meta-schema: %w", IntegerLiteral, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, meta); err != nil {
		return nil, fmt.Errorf("compile: the %s meta-schema: %w", IntegerLiteral, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile: the %s meta-schema: %w", IntegerLiteral, err)
	}
	return &jsonschema.Vocabulary{URL: url, Schema: sch, Compile: compileIntegerLiteral}, nil
}

func compileIntegerLiteral(_ *jsonschema.CompilerContext, obj map[string]any) (jsonschema.SchemaExt, error) {
	if on, _ := obj[IntegerLiteral].(bool); on {
		return integerLiteral{}, nil
	}
	return nil, nil
}

type integerLiteral struct{}

// Validate fails a number whose text has a fraction or an exponent, or is
// -0. Other values are left to the other keywords.
func (integerLiteral) Validate(ctx *jsonschema.ValidatorContext, v any) {
	n, ok := v.(json.Number)
	if !ok || IsIntegerLiteral(string(n)) {
		return
	}
	ctx.AddError(&NotIntegerLiteral{Literal: string(n)})
}

// IsIntegerLiteral reports whether a JSON number's text is an integer
// literal as serde_json reads one: an optional minus sign and digits, no
// fraction, no exponent, and not -0.
func IsIntegerLiteral(s string) bool {
	if s == "-0" {
		return false
	}
	return !strings.ContainsAny(s, ".eE")
}

// NotIntegerLiteral is the error of IntegerLiteral: a number written with a
// fraction or an exponent (or -0) where an integer literal is required.
type NotIntegerLiteral struct {
	// Literal is the number's text, cut to 40 bytes.
	Literal string
}

// KeywordPath is the keyword's location in its schema.
func (*NotIntegerLiteral) KeywordPath() []string { return []string{IntegerLiteral} }

// LocalizedString says what is wrong and what to write.
func (k *NotIntegerLiteral) LocalizedString(p *message.Printer) string {
	lit := k.Literal
	if len(lit) > 40 {
		lit = lit[:37] + "..."
	}
	if lit == "-0" {
		return p.Sprintf("-0 is not an integer literal: serde_json reads it as a float and rejects it for an integer; write 0")
	}
	return p.Sprintf("%s has a fraction or an exponent: serde_json reads it as a float and rejects it for an integer; write the integer without them", lit)
}

// IsIntegerLiteralExt reports whether ext is IntegerLiteral as compiled
// into a schema (jsonschema.Schema.Extensions), so that a validator of
// its own can apply it: IsIntegerLiteral, reported as NotIntegerLiteral.
func IsIntegerLiteralExt(ext jsonschema.SchemaExt) bool {
	_, ok := ext.(integerLiteral)
	return ok
}
