package judge_test

import (
	"fmt"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/validate/typed"
	"github.com/agentproto/agentproto/schema/registry"
)

// Judge the params of an ACP initialize request against their schema:
// the fast path (the generated types) cannot vouch for them, so the
// document validator judges them and explain says what is wrong.
func ExampleTrace_Message() {
	reg, err := registry.Embedded()
	if err != nil {
		fmt.Println(err)
		return
	}
	schemas := protocol.NewSchemas()
	j := judge.New(reg, schemas, judge.Options{Fast: typed.Checker{}})
	v := reg.Lookup("acp", "v1")
	sch, err := schemas.Get(v.IDPrefix() + "initialize.params.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	line := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"1"}}`)
	var arena jsonscan.Arena
	doc, err := arena.Parse(line, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := &protocol.Message{Line: 1, Data: line, Doc: doc, Checks: []protocol.Check{{Schema: sch, Loc: []string{"params"}}}}
	var verdict judge.Verdict
	j.Trace("session.jsonl", "acp").Message(m, &judge.Scratch{}, &verdict)
	for _, f := range verdict.Out {
		fmt.Println(f.Line, f.Pointer, f.Message)
	}
	// Output:
	// 1 /params/protocolVersion wrong type: got string, want integer (acp: ProtocolVersion)
}
