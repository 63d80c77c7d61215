package acprpc_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	v2 "github.com/agentproto/agentproto/pkg/acp/v2"
	"github.com/agentproto/agentproto/pkg/acp/v2/acprpc"
)

type agent struct {
	acprpc.UnimplementedAgent
	client  *acprpc.AgentSide
	started chan struct{}
}

// SessionPrompt streams the prompt back; a prompt "wait" waits for its
// turn to be cancelled.
func (a *agent) SessionPrompt(ctx context.Context, p *v2.PromptRequest) (*v2.PromptResponse, error) {
	if t, ok := p.Prompt[0].(*v2.TextContent); ok && t.Text == "wait" {
		close(a.started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	err := a.client.SessionUpdate(ctx, &v2.UpdateSessionNotification{SessionID: p.SessionID,
		Update: &v2.AgentMessageChunk{MessageID: "m1", Content: p.Prompt[0]}})
	return &v2.PromptResponse{MessageID: "m1"}, err
}

type client struct {
	acprpc.UnimplementedClient
	mu   sync.Mutex
	seen []string
}

func (c *client) SessionUpdate(_ context.Context, p *v2.UpdateSessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u, ok := p.Update.(*v2.AgentMessageChunk); ok {
		c.seen = append(c.seen, u.Content.(*v2.TextContent).Text)
	}
	return nil
}

type buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestV2PromptAndCancel(t *testing.T) {
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	sent := &buffer{}
	a := &agent{started: make(chan struct{})}
	a.client = acprpc.NewAgentSide(ar, aw)
	cs := acprpc.NewClientSide(cr, io.MultiWriter(sent, cw))
	c := &client{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = a.client.Serve(context.Background(), a); aw.Close() }()
	go func() { defer wg.Done(); _ = cs.Serve(context.Background(), c) }()
	defer wg.Wait()
	defer cw.Close()

	res, err := cs.SessionPrompt(context.Background(), &v2.PromptRequest{SessionID: "s1", Prompt: []v2.ContentBlock{&v2.TextContent{Text: "hi"}}})
	if err != nil || res.MessageID != "m1" {
		t.Fatalf("prompt: %v, %v", res, err)
	}
	if strings.Join(c.seen, ",") != "hi" {
		t.Errorf("updates before the answer: %q", c.seen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-a.started; cancel() }()
	if _, err := cs.SessionPrompt(ctx, &v2.PromptRequest{SessionID: "s1", Prompt: []v2.ContentBlock{&v2.TextContent{Text: "wait"}}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled prompt: %v", err)
	}
	if !strings.Contains(sent.String(), `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`) {
		t.Errorf("no session/cancel sent:\n%s", sent.String())
	}
}
