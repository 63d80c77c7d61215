// Package docvalid validates a value of a parsed document (jsonscan.Doc)
// against a compiled JSON Schema and gives the error tree jsonschema/v6
// would give for the value built as map[string]any, without building it
// (ValidateDoc); and keeps the outcomes of such validations with their
// explanations (Memo), so that thousands of values that fail the same way
// are validated and explained once.
//
// Only failing values come here in the validator: a fast path vouches for
// the rest. A schema that uses a keyword ValidateDoc does not evaluate is
// declined (ok false), and the caller validates with jsonschema/v6.
package docvalid
