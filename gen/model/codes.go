package model

import "strings"

// jsonrpcCodes are the names of JSON-RPC 2.0's standard error codes, and
// of the code LSP reserved for a cancelled request, which protocols built
// on JSON-RPC use too: an integer enum value or an integer union tag
// with one of these values is named by it, not by its digits.
var jsonrpcCodes = map[string]string{
	"-32700": "ParseError",
	"-32600": "InvalidRequest",
	"-32601": "MethodNotFound",
	"-32602": "InvalidParams",
	"-32603": "InternalError",
	"-32800": "RequestCancelled",
}

// codeName is the word that names the integer value text (decimal) in Go
// names: a standard JSON-RPC code's name, else its digits, with Minus for
// a negative one.
func codeName(text string) string {
	if n, ok := jsonrpcCodes[text]; ok {
		return n
	}
	if rest, ok := strings.CutPrefix(text, "-"); ok {
		return "Minus" + rest
	}
	return text
}

// tagWord is the word that names the tag value tag of u in Go names: the
// tag itself, or for an integer tag its codeName.
func (u *UnionType) tagWord(tag string) string {
	if u.IntTag {
		return codeName(tag)
	}
	return tag
}
