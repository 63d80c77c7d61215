package load

import "github.com/agentproto/agentproto/internal/orderedjson"

// object is a JSON object that keeps the order of its members, which
// decides the order of generated fields and types.
type object = orderedjson.Object

// parseOrdered parses JSON into nil, bool, json.Number, string, []any and
// *object values. Duplicate member names are an error.
func parseOrdered(data []byte) (any, error) { return orderedjson.Parse(data) }

// plain converts an ordered value to plain Go values (map[string]any) for
// comparisons and encoding.
func plain(v any) any { return orderedjson.Plain(v) }
