package schema

// The single-file bundles (*.bundle.json) and the reference pages in docs/
// are generated from the schemas, and each ACP wire version's history.json
// from the official schema's release history in the reference material
// (left as it is where that is absent); make check proves them fresh.
//go:generate go run ../internal/publish/cmd/publish -schema . -docs ../docs
//go:generate go run ../internal/historygen -releases ../../shared/reference/acp/history/releases.json -schema .
