// Package schema holds the JSON Schemas of agentproto, embedded so that every
// tool resolves their $id offline, and versions.json, the one list of the
// protocol versions and dialects they describe (read by package registry).
// Package compile builds a validator that knows them all.
package schema

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

// Files holds every schema below this directory, keyed by path
// (for example "acp/v1/common.json").
//
//go:embed all:acp all:arcp all:arcan versions.json
var Files embed.FS

// VersionsFile is the registry's list of protocol versions and dialects in
// Files.
const VersionsFile = "versions.json"

// IDPrefix is the prefix of every $id in Files: the $id of the file at path
// P is IDPrefix + P.
const IDPrefix = "https://agentproto.dev/schema/"

// DispatchTable is the base name of the machine-readable table in each
// protocol version folder that maps a message to its schema file.
const DispatchTable = "dispatch.json"

// RequirementsFile is the base name of the requirement catalogue in a
// protocol version folder: every MUST, MUST NOT, SHOULD and SHOULD NOT of
// the version's specification as a row of data (see package
// schema/registry).
const RequirementsFile = "requirements.json"

// HistoryFile is the base name of a version folder's history table: what
// earlier releases of the protocol defined and the version no longer does
// (see package schema/registry's History).
const HistoryFile = "history.json"

// IsData reports whether a .json file in Files, by its base name, is data
// rather than a source schema: the dispatch tables, the requirement catalogues, ACP's
// history tables and their notes, ARCP's table of dialect deviations, and
// the generated single-file bundles (*.bundle.json), which repeat the
// source schemas for other languages.
func IsData(base string) bool {
	return base == DispatchTable || base == RequirementsFile || base == VersionsFile || base == HistoryFile || base == "history-notes.json" || base == "deviations.json" || strings.HasSuffix(base, ".bundle.json")
}

// Paths lists the schema files (*.json except data files such as the dispatch
// tables) in Files below dir ("." for all), in lexical order.
func Paths(dir string) ([]string, error) {
	var out []string
	err := fs.WalkDir(Files, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && path.Ext(p) == ".json" && !IsData(path.Base(p)) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}
