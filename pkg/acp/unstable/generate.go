package unstable

//go:generate go run ../../../cmd/protogen -pkg unstable -o unstable_gen.go ../../../schema/acp/v1-unstable
