package unstable

//go:generate go run ../../../cmd/protogen -pkg unstable -o unstable_gen.go ../../../schema/acp/v1-unstable
//go:generate go run ../../../internal/tablegen -pkg unstable -version v1-unstable -types -o methods_gen.go
