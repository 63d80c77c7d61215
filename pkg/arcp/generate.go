package arcp

//go:generate go run ../../cmd/protogen -pkg arcp -o arcp_gen.go ../../schema/arcp/v1.1
