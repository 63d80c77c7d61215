package acprpc_test

import (
	"context"
	"fmt"
	"io"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/acp/acprpc"
)

// echo is an agent that streams the prompt back and ends the turn.
type echo struct {
	acprpc.UnimplementedAgent
	client *acprpc.AgentSide
}

func (a *echo) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	for _, block := range p.Prompt {
		err := a.client.SessionUpdate(ctx, &acp.SessionNotification{SessionID: p.SessionID, Update: &acp.AgentMessageChunk{Content: block}})
		if err != nil {
			return nil, err
		}
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// printer is a client that prints what the agent streams.
type printer struct{ acprpc.UnimplementedClient }

func (printer) SessionUpdate(_ context.Context, p *acp.SessionNotification) error {
	if u, ok := p.Update.(*acp.AgentMessageChunk); ok {
		fmt.Println("agent:", u.Content.(*acp.TextContent).Text)
	}
	return nil
}

// An agent and a client joined by pipes: the client's prompt turn returns
// once every update the agent streamed before its answer was handled.
func ExampleAgentSide() {
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	agent := acprpc.NewAgentSide(ar, aw)
	go func() {
		_ = agent.Serve(context.Background(), &echo{client: agent})
		aw.Close()
	}()
	client := acprpc.NewClientSide(cr, cw)
	go func() { _ = client.Serve(context.Background(), printer{}) }()

	res, err := client.SessionPrompt(context.Background(), &acp.PromptRequest{SessionID: "s1",
		Prompt: []acp.ContentBlock{&acp.TextContent{Text: "one"}, &acp.TextContent{Text: "two"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stop reason:", res.StopReason)
	cw.Close()
	<-client.Done()
	// Output:
	// agent: one
	// agent: two
	// stop reason: end_turn
}
