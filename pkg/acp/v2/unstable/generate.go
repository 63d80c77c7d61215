package unstable

//go:generate go run ../../../../cmd/protogen -pkg unstable -o unstable_gen.go -map https://agentproto.dev/schema/acp/v2/=github.com/agentproto/agentproto/pkg/acp/v2 ../../../../schema/acp/v2-unstable
//go:generate go run ../../../../internal/tablegen -pkg unstable -version v2-unstable -types -o methods_gen.go
