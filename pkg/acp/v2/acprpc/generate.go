package acprpc

//go:generate go run ../../../../cmd/protogen -pkg acprpc -rpc ../../../../schema/acp/v2/dispatch.json -rpc-types github.com/agentproto/agentproto/pkg/acp/v2 -o acprpc_gen.go ../../../../schema/acp/v2
