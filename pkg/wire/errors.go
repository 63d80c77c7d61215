package wire

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/suggest"
	"github.com/agentproto/agentproto/pkg/jsonpointer"
)

// Code classifies an Error.
type Code uint8

// Error codes.
const (
	CodeSyntax     Code = iota // not well-formed JSON
	CodeUTF8                   // invalid UTF-8 or a lone surrogate escape
	CodeType                   // a value of the wrong JSON type
	CodeRange                  // a number out of the range of its Go type
	CodeRequired               // a required member is absent
	CodeUnknown                // a member a closed object does not allow
	CodeTag                    // a union tag that is missing or not a string
	CodeConstraint             // a schema constraint (enum, const, pattern, bounds) fails
	CodeDuplicate              // a member appears twice
)

// Error is a decoding or validation error at a place in a JSON document.
type Error struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value, "" for
	// the whole document.
	Pointer string
	// Offset is the byte offset in the input where decoding failed, or -1
	// for validation errors.
	Offset int
	// Msg says what is wrong.
	Msg string
	// Code classifies the error.
	Code Code
	// Keyword is the JSON Schema keyword the value fails ("type",
	// "required", "additionalProperties", "maximum", "oneOf", …), as a
	// schema validator would name it; "" when the input is not JSON (a
	// syntax or UTF-8 error) or when no keyword of the schema is to blame
	// (a duplicate member, a value built in Go that no JSON holds).
	Keyword string
	// Got is what was found, for the errors that name it: the JSON type
	// of a value of the wrong type ("number"), the string that is none of
	// an enum's values or a union's tags, the member a closed object does
	// not allow; "" otherwise.
	Got string
	// Want is what the schema asks for there, for the errors that name
	// it: the JSON types a value may have ("string", "null"), the values
	// of an enum or a union's tags, the const (as JSON), the required
	// members missing or the tag member, the members a closed object
	// allows; nil otherwise.
	Want []string
}

func newError(offset int, format string, args ...any) *Error {
	return &Error{Offset: offset, Msg: fmt.Sprintf(format, args...), Code: CodeSyntax}
}

func (e *Error) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	if e.Offset >= 0 {
		return fmt.Sprintf("%s: %s (at byte %d)", p, e.Msg, e.Offset)
	}
	return p + ": " + e.Msg
}

// At prefixes the pointer of err (an *Error, or an error wrapping one) with
// the member name or index token, and returns err. Other errors are
// returned unchanged.
func At(err error, token string) error {
	var e *Error
	if errors.As(err, &e) {
		e.Pointer = "/" + EscapePointer(token) + e.Pointer
	}
	return err
}

// AtIndex is At for an array index.
func AtIndex(err error, i int) error {
	var e *Error
	if errors.As(err, &e) {
		e.Pointer = "/" + itoa(i) + e.Pointer
	}
	return err
}

func itoa(i int) string { return fmt.Sprint(i) }

// Blame renames the keyword of err (an *Error, or an error wrapping one)
// from from to to, when err is the value's own error (its pointer is "")
// and names from; it returns err. Generated decoders use it where the
// schema blames a failure on another keyword than the decoder does, such
// as an integer beyond an exclusive bound.
func Blame(err error, from, to string) error {
	var e *Error
	if errors.As(err, &e) && e.Pointer == "" && e.Keyword == from {
		e.Keyword = to
	}
	return err
}

// EscapePointer escapes a member name for use as a JSON pointer token
// (jsonpointer.Escape).
func EscapePointer(s string) string { return jsonpointer.Escape(s) }

// RequiredError reports that the members named are absent from an object.
func RequiredError(offset int, names ...string) error {
	return &Error{Offset: offset, Msg: "missing required member " + quoteList(names), Code: CodeRequired, Keyword: "required", Want: names}
}

// UnknownError reports a member a closed object does not allow. The error
// is the object's, as additionalProperties is a keyword of the object; the
// message names the member.
func UnknownError(offset int, name string, allowed ...string) error {
	return &Error{Offset: offset, Msg: fmt.Sprintf("member %q is not allowed here (allowed: %s)", name, strings.Join(allowed, ", ")), Code: CodeUnknown, Keyword: "additionalProperties", Got: name, Want: allowed}
}

// DuplicateError reports a member that appears twice in one object.
func DuplicateError(offset int, name string) error {
	return &Error{Offset: offset, Pointer: "/" + EscapePointer(name), Msg: fmt.Sprintf("member %q appears more than once", name), Code: CodeDuplicate}
}

// OrNull is where generated decoders report the error of a value that may
// also be null: a type error of the value itself (not of a value inside
// it) says that null is allowed as well. Other errors are returned as they
// are.
func OrNull(err error) error {
	e, ok := err.(*Error)
	if !ok || e.Code != CodeType || e.Pointer != "" || e.Want == nil || slices.Contains(e.Want, "null") {
		return err
	}
	c := *e
	c.Want = append(slices.Clone(e.Want), "null")
	if strings.HasPrefix(c.Msg, "got ") {
		c.Msg += " or null"
	}
	return &c
}

// WantTypes is where generated decoders report the error of a union's
// variant chosen by the value's JSON type: a type error of the value
// itself (a number with a fraction where the union's numbers are
// integers) says every type the union takes (phrase: "integer or
// array"). Other errors are returned as they are.
func WantTypes(err error, phrase string) error {
	e, ok := err.(*Error)
	if !ok || e.Code != CodeType || e.Pointer != "" {
		return err
	}
	c := *e
	c.Want = schemaTypes(phrase)
	c.Msg += "; want " + phrase
	return &c
}

// ConstError reports a member whose value must be a fixed constant.
func ConstError(offset int, want string) error {
	return &Error{Offset: offset, Msg: "must be " + want, Code: CodeConstraint, Keyword: "const", Want: []string{want}}
}

// schemaTypes returns the JSON Schema types a TypeError's phrase names
// ("a string", "null or integer or string"), or nil for a phrase that
// names something else.
func schemaTypes(phrase string) []string {
	var out []string
	for t := range strings.SplitSeq(phrase, " or ") {
		t = strings.TrimPrefix(strings.TrimPrefix(t, "a "), "an ")
		switch t {
		case "null", "boolean", "integer", "number", "string", "array", "object":
			out = append(out, t)
		default:
			return nil
		}
	}
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// Errors is a list of errors found by Validate, each an *Error.
type Errors []*Error

func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Checker collects validation errors. Generated Validate methods pass one
// down the value tree, and build the pointers of the values they visit
// with its Join and JoinIndex.
type Checker struct {
	errs   Errors
	quiet  bool
	failed bool
	// col is the state of a collecting check (see Decoder.Collect), nil
	// in any other, so that a Checker stays small on the valid path.
	col *collection
}

// collection is the state of a collecting check.
type collection struct {
	// skipped are the pointers of the values a collecting decode could
	// not decode and stepped over: they hold zero or partly decoded
	// values, whose failures are not the input's and are not recorded.
	skipped []string
	// src is the input and root the offset of the value whose defects
	// the checker lists, so that a check can read what did not decode
	// (RawItems, Input).
	src  []byte
	root int
	// partial notes that a defect may have hidden others (see Partial).
	partial bool
}

// Quiet makes the checker note only whether anything failed (Failed): it
// keeps no errors, and its Join and JoinIndex build no pointers, so a
// check of a valid value allocates nothing. For a caller that needs a
// verdict, not an explanation.
func (c *Checker) Quiet() { c.quiet = true }

// Fail records that the value at pointer breaks a constraint; the error
// names no keyword (FailKeyword does).
func (c *Checker) Fail(pointer, format string, args ...any) {
	if !c.records(pointer) {
		return // before the message is formatted
	}
	c.errs = append(c.errs, &Error{Pointer: pointer, Offset: -1, Msg: fmt.Sprintf(format, args...), Code: CodeConstraint})
}

// FailKeyword records that the value at pointer fails the JSON Schema
// keyword named (see Error.Keyword). A quiet checker only notes the
// failure: it formats nothing and allocates nothing.
func (c *Checker) FailKeyword(pointer, keyword, format string, args ...any) {
	if !c.records(pointer) {
		return // before the message is formatted
	}
	c.errs = append(c.errs, &Error{Pointer: pointer, Offset: -1, Msg: fmt.Sprintf(format, args...), Code: CodeConstraint, Keyword: keyword})
}

// FailNotOneOf records that got, the string at pointer, is none of the
// allowed values: keyword "enum", or "const" for the tag of a union. The
// message lists them, and names the one got most likely stands for when
// one is that close ("did you mean"). A quiet checker only notes the
// failure.
func (c *Checker) FailNotOneOf(pointer, keyword, got string, allowed ...string) {
	if !c.records(pointer) {
		return // before the message is formatted
	}
	c.errs = append(c.errs, &Error{Pointer: pointer, Offset: -1, Msg: notOneOf(got, allowed), Code: CodeConstraint, Keyword: keyword, Got: got, Want: slices.Clone(allowed)})
}

// notOneOf is FailNotOneOf's message.
func notOneOf(got string, allowed []string) string {
	var sb strings.Builder
	sb.WriteString(strconv.Quote(got))
	sb.WriteString(" is not one of ")
	for i, a := range allowed {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(a)
	}
	if meant := suggest.Meant(got, allowed); len(meant) > 0 {
		sb.WriteString("; did you mean ")
		for i, m := range meant {
			if i > 0 {
				sb.WriteString(" or ")
			}
			sb.WriteString(strconv.Quote(m))
		}
		sb.WriteString("?")
	}
	return sb.String()
}

// FailWith records err, an error of decoding or checking a value found at
// pointer (an *Error, or an error wrapping one, whose own pointer is
// relative to that value), with its pointer joined to pointer and its
// keyword kept.
func (c *Checker) FailWith(pointer string, err error) {
	if c.quiet {
		c.failed = true
		return
	}
	var we *Error
	if errors.As(err, &we) {
		c.add(&Error{Pointer: pointer + we.Pointer, Offset: -1, Msg: we.Msg, Code: CodeConstraint, Keyword: we.Keyword, Got: we.Got, Want: we.Want})
		return
	}
	var es Errors
	if errors.As(err, &es) {
		for _, e := range es {
			c.add(&Error{Pointer: pointer + e.Pointer, Offset: -1, Msg: e.Msg, Code: CodeConstraint, Keyword: e.Keyword, Got: e.Got, Want: e.Want})
		}
		return
	}
	c.add(&Error{Pointer: pointer, Offset: -1, Msg: err.Error(), Code: CodeConstraint})
}

// add records e unless it is about a value a collecting decode skipped.
func (c *Checker) add(e *Error) {
	if c.records(e.Pointer) {
		c.errs = append(c.errs, e)
	}
}

// records reports whether c keeps an error at pointer, for its callers to
// ask before they build one. A quiet checker keeps none and notes only
// that something failed; a collecting one drops errors about values its
// decode skipped, and those past MaxExplained.
func (c *Checker) records(pointer string) bool {
	if c.quiet {
		c.failed = true
		return false
	}
	return c.col == nil || !(c.inSkipped(pointer) || c.full())
}

// inSkipped reports whether pointer is at or below a value a collecting
// decode skipped.
func (c *Checker) inSkipped(pointer string) bool {
	for _, s := range c.col.skipped {
		if pointer == s || strings.HasPrefix(pointer, s) && pointer[len(s)] == '/' {
			return true
		}
	}
	return false
}

// Failed reports whether Fail was called.
func (c *Checker) Failed() bool { return c.failed || len(c.errs) > 0 }

// Err returns the collected errors as Errors, or nil if there are none. A
// quiet checker that saw a failure returns one error that says so.
func (c *Checker) Err() error {
	if len(c.errs) == 0 {
		if c.failed {
			return Errors{{Pointer: "", Offset: -1, Msg: "the value breaks a constraint (a quiet check keeps no detail)", Code: CodeConstraint}}
		}
		return nil
	}
	return c.errs
}

// Join is the package's Join, or "" for a quiet checker.
func (c *Checker) Join(pointer, token string) string {
	if c.quiet {
		return ""
	}
	return Join(pointer, token)
}

// JoinIndex is the package's JoinIndex, or "" for a quiet checker.
func (c *Checker) JoinIndex(pointer string, i int) string {
	if c.quiet {
		return ""
	}
	return JoinIndex(pointer, i)
}

// Join appends a member name to a JSON pointer (jsonpointer.Join).
func Join(pointer, token string) string { return jsonpointer.Join(pointer, token) }

// JoinIndex appends an array index to a pointer (jsonpointer.JoinIndex).
func JoinIndex(pointer string, i int) string { return jsonpointer.JoinIndex(pointer, i) }

// UnescapePointer turns a JSON pointer token back into a member name
// (jsonpointer.Unescape).
func UnescapePointer(tok string) string { return jsonpointer.Unescape(tok) }

// WalkPointer calls step with each unescaped reference token of a JSON
// pointer in turn (jsonpointer.Walk).
func WalkPointer(ptr string, step func(tok string) bool) bool { return jsonpointer.Walk(ptr, step) }

// SplitPointer splits a JSON pointer into its unescaped tokens
// (jsonpointer.Split): "" has none, "/" one, the empty member name; a
// string that is not a pointer has none.
func SplitPointer(p string) []string {
	toks, _ := jsonpointer.Split(p)
	return toks
}
