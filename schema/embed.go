// Package schema holds the JSON Schemas of agentproto, embedded so that every
// tool resolves their $id offline.
package schema

import "embed"

// Files holds every schema below this directory, keyed by path
// (for example "acp/v1/common.json").
//
//go:embed acp arcp arcan
var Files embed.FS

// IDPrefix is the prefix of every $id in Files: the $id of the file at path
// P is IDPrefix + P.
const IDPrefix = "https://agentproto.dev/schema/"
