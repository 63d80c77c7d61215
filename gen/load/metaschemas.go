package load

import (
	"embed"
	"io/fs"
)

// The standard meta-schemas of drafts 04, 06, 07, 2019-09 and 2020-12,
// each at the path of its URI under json-schema.org, so that a $ref to one
// (OpenAPI 2.0's schema refers to draft-04's) resolves offline.
//
//go:embed metaschemas
var metaFiles embed.FS

// metaSources serves the embedded meta-schemas by their http and https
// URIs.
func metaSources() []Source {
	// fs.Sub fails only on an invalid path, which "metaschemas" is not.
	sub, _ := fs.Sub(metaFiles, "metaschemas")
	return []Source{
		{Prefix: "http://json-schema.org/", FS: sub, Name: "meta-schemas"},
		{Prefix: "https://json-schema.org/", FS: sub, Name: "meta-schemas"},
	}
}
