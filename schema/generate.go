package schema

// The single-file bundles (*.bundle.json) and the reference pages in docs/
// are generated from the schemas; make check proves them fresh.
//go:generate go run ../internal/publish/cmd/publish -schema . -docs ../docs
