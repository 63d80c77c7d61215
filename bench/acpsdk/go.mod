module github.com/agentproto/agentproto/bench/acpsdk

go 1.24

require (
	github.com/agentproto/agentproto v0.0.0
	github.com/coder/acp-go-sdk v0.13.0
)

replace github.com/agentproto/agentproto => ../..
