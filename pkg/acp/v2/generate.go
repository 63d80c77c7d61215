package v2

//go:generate go run ../../../cmd/protogen -pkg v2 -o v2_gen.go ../../../schema/acp/v2
