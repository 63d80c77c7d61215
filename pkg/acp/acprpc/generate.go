package acprpc

//go:generate go run ../../../cmd/protogen -pkg acprpc -rpc ../../../schema/acp/v1/dispatch.json -rpc-types github.com/agentproto/agentproto/pkg/acp -o acprpc_gen.go ../../../schema/acp/v1
