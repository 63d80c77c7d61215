package acp

//go:generate go run ../../cmd/protogen -pkg acp -o acp_gen.go ../../schema/acp/v1
//go:generate go run ../../internal/tablegen -pkg acp -version v1 -o methods_gen.go
