package v2

//go:generate go run ../../../cmd/protogen -pkg v2 -o v2_gen.go ../../../schema/acp/v2
//go:generate go run ../../../internal/tablegen -pkg v2 -version v2 -types -o methods_gen.go
