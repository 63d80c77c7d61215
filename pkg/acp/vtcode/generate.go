package vtcode

//go:generate go run ../../../cmd/protogen -pkg vtcode -o vtcode_gen.go ../../../schema/acp/vtcode
