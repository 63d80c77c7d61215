// Package acpsdk measures agentproto's generated ACP connection against
// github.com/coder/acp-go-sdk on the same work: one prompt turn in which
// the agent streams 100 session/update notifications before it answers,
// over an in-memory pipe, both sides in one process. It is a module of its
// own so that agentproto's go.mod does not depend on the other SDK.
//
//	cd bench/acpsdk && go test -run '^$' -bench . -benchmem
package acpsdk

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"

	coder "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/acp/acprpc"
)

// Updates is the number of session/update notifications in a turn.
const Updates = 100

type ourAgent struct {
	acprpc.UnimplementedAgent
	client *acprpc.AgentSide
}

func (a *ourAgent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	for range Updates {
		err := a.client.SessionUpdate(ctx, &acp.SessionNotification{SessionID: p.SessionID,
			Update: &acp.AgentMessageChunk{Content: &acp.TextContent{Text: "a chunk of the agent's reply"}}})
		if err != nil {
			return nil, err
		}
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type ourClient struct {
	acprpc.UnimplementedClient
	updates atomic.Int64
}

func (c *ourClient) SessionUpdate(_ context.Context, p *acp.SessionNotification) error {
	if _, ok := p.Update.(*acp.AgentMessageChunk); ok {
		c.updates.Add(1)
	}
	return nil
}

// The other SDK's interfaces have every method; those a turn does not use
// are left to the embedded nil interface.
type coderAgent struct {
	coder.Agent
	conn *coder.AgentSideConnection
}

func (a *coderAgent) Prompt(ctx context.Context, p coder.PromptRequest) (coder.PromptResponse, error) {
	for range Updates {
		if err := a.conn.SessionUpdate(ctx, coder.SessionNotification{SessionId: p.SessionId,
			Update: coder.UpdateAgentMessageText("a chunk of the agent's reply")}); err != nil {
			return coder.PromptResponse{}, err
		}
	}
	return coder.PromptResponse{StopReason: coder.StopReasonEndTurn}, nil
}

type coderClient struct {
	coder.Client
	updates atomic.Int64
}

func (c *coderClient) SessionUpdate(_ context.Context, p coder.SessionNotification) error {
	if p.Update.AgentMessageChunk != nil {
		c.updates.Add(1)
	}
	return nil
}

func check(b *testing.B, got int64, turns int) {
	if want := int64(turns * Updates); got != want {
		b.Fatalf("the client saw %d updates in %d turns, want %d", got, turns, want)
	}
}

func BenchmarkPromptTurn(b *testing.B) {
	ctx := context.Background()
	b.Run("agentproto", func(b *testing.B) {
		ar, cw := io.Pipe()
		cr, aw := io.Pipe()
		agent := acprpc.NewAgentSide(ar, aw)
		client := acprpc.NewClientSide(cr, cw)
		c := &ourClient{}
		go func() { _ = agent.Serve(ctx, &ourAgent{client: agent}) }()
		go func() { _ = client.Serve(ctx, c) }()
		defer cw.Close()
		defer aw.Close()
		req := &acp.PromptRequest{SessionID: "s1", Prompt: []acp.ContentBlock{&acp.TextContent{Text: "fix the parser"}}}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := client.SessionPrompt(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		check(b, c.updates.Load(), b.N)
	})
	b.Run("coder-acp-go-sdk", func(b *testing.B) {
		ar, cw := io.Pipe()
		cr, aw := io.Pipe()
		a := &coderAgent{}
		a.conn = coder.NewAgentSideConnection(a, aw, ar)
		c := &coderClient{}
		client := coder.NewClientSideConnection(c, cw, cr)
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		a.conn.SetLogger(quiet)
		client.SetLogger(quiet)
		defer cw.Close()
		defer aw.Close()
		req := coder.PromptRequest{SessionId: "s1", Prompt: []coder.ContentBlock{coder.TextBlock("fix the parser")}}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := client.Prompt(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		check(b, c.updates.Load(), b.N)
	})
}
