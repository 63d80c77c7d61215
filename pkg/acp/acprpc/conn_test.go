package acprpc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/acp/acprpc"
	"github.com/agentproto/agentproto/pkg/jsonrpc"
	"github.com/agentproto/agentproto/pkg/wire"
)

// testAgent streams two updates, asks permission, reads a file through the
// client and streams what it read; a prompt "wait" waits for cancellation.
type testAgent struct {
	acprpc.UnimplementedAgent
	client  *acprpc.AgentSide
	waiting chan struct{}
}

func (a *testAgent) Initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: p.ProtocolVersion}, nil
}

func (a *testAgent) SessionNew(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *testAgent) say(ctx context.Context, sid acp.SessionID, text string) error {
	return a.client.SessionUpdate(ctx, &acp.SessionNotification{SessionID: sid,
		Update: &acp.AgentMessageChunk{Content: &acp.TextContent{Text: text}}})
}

func (a *testAgent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	if t, ok := p.Prompt[0].(*acp.TextContent); ok && (t.Text == "wait" || t.Text == "ignore") {
		_ = a.say(ctx, p.SessionID, "waiting")
		close(a.waiting)
		<-ctx.Done()
		if t.Text == "ignore" { // finishes the turn as if it had not noticed
			return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
		}
		return nil, ctx.Err()
	}
	for _, s := range []string{"one", "two"} {
		if err := a.say(ctx, p.SessionID, s); err != nil {
			return nil, err
		}
	}
	// A variant this version does not know travels as it is.
	if err := a.client.SessionUpdate(ctx, &acp.SessionNotification{SessionID: p.SessionID,
		Update: &acp.UnknownSessionUpdate{Tag: "hologram", Raw: []byte(`{"sessionUpdate":"hologram","frames":3}`)}}); err != nil {
		return nil, err
	}
	perm, err := a.client.SessionRequestPermission(ctx, &acp.RequestPermissionRequest{SessionID: p.SessionID,
		ToolCall: acp.ToolCallUpdate{ToolCallID: "t1"},
		Options:  []acp.PermissionOption{{OptionID: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}}})
	if err != nil {
		return nil, err
	}
	if sel, ok := perm.Outcome.(*acp.SelectedPermissionOutcome); !ok || sel.OptionID != "allow" {
		return &acp.PromptResponse{StopReason: acp.StopReasonRefusal}, nil
	}
	file, err := a.client.FsReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: p.SessionID, Path: "/w/go.mod"})
	if err != nil {
		return nil, err
	}
	if err := a.say(ctx, p.SessionID, file.Content); err != nil {
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type testClient struct {
	acprpc.UnimplementedClient
	mu      sync.Mutex
	updates []string
}

func (c *testClient) SessionUpdate(ctx context.Context, p *acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch u := p.Update.(type) {
	case *acp.AgentMessageChunk:
		c.updates = append(c.updates, u.Content.(*acp.TextContent).Text)
	case *acp.UnknownSessionUpdate:
		c.updates = append(c.updates, "unknown "+u.Tag)
	}
	return nil
}

func (c *testClient) SessionRequestPermission(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: &acp.SelectedPermissionOutcome{OptionID: p.Options[0].OptionID}}, nil
}

func (c *testClient) FsReadTextFile(ctx context.Context, p *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	return &acp.ReadTextFileResponse{Content: "module x (" + p.Path + ")"}, nil
}

// syncBuffer records what one side wrote.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// connect serves a and c over pipes; the buffers hold what each side wrote,
// and late has the client's complaint about each answer no call waits for.
func connect(t *testing.T, a *testAgent, c *testClient) (client *acprpc.ClientSide, fromAgent, fromClient *syncBuffer, late chan error) {
	t.Helper()
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	fromAgent, fromClient = &syncBuffer{}, &syncBuffer{}
	agent := acprpc.NewAgentSide(ar, io.MultiWriter(fromAgent, aw))
	a.client = agent
	late = make(chan error, 10)
	client = acprpc.NewClientSide(cr, io.MultiWriter(fromClient, cw), jsonrpc.Options{OnError: func(err error) {
		select {
		case late <- err:
		default:
		}
	}})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = agent.Serve(context.Background(), a); aw.Close() }()
	go func() { defer wg.Done(); _ = client.Serve(context.Background(), c) }()
	t.Cleanup(func() { cw.Close(); wg.Wait() })
	return client, fromAgent, fromClient, late
}

func text(s string) []acp.ContentBlock { return []acp.ContentBlock{&acp.TextContent{Text: s}} }

func TestPromptTurn(t *testing.T) {
	c := &testClient{}
	client, _, _, _ := connect(t, &testAgent{waiting: make(chan struct{})}, c)
	ctx := context.Background()
	init, err := client.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: 1})
	if err != nil || init.ProtocolVersion != 1 {
		t.Fatalf("initialize: %v, %v", init, err)
	}
	sess, err := client.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/w", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.SessionPrompt(ctx, &acp.PromptRequest{SessionID: sess.SessionID, Prompt: text("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != acp.StopReasonEndTurn {
		t.Errorf("stop reason %s", res.StopReason)
	}
	// Every update arrived, in order, before the answer.
	want := "one|two|unknown hologram|module x (/w/go.mod)"
	if got := strings.Join(c.updates, "|"); got != want {
		t.Errorf("updates %s, want %s", got, want)
	}
}

func TestCancelledPromptEndsWithCancelled(t *testing.T) {
	for _, prompt := range []string{"wait", "ignore"} {
		t.Run(prompt, func(t *testing.T) { cancelledTurn(t, prompt) })
	}
}

// cancelledTurn cancels a turn the agent answers with the context's error
// (wait) or with a stop reason of its own (ignore): either way the answer
// says cancelled.
func cancelledTurn(t *testing.T, prompt string) {
	a := &testAgent{waiting: make(chan struct{})}
	client, fromAgent, fromClient, late := connect(t, a, &testClient{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-a.waiting; cancel() }()
	_, err := client.SessionPrompt(ctx, &acp.PromptRequest{SessionID: "s1", Prompt: text(prompt)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("SessionPrompt = %v, want context.Canceled", err)
	}
	if !strings.Contains(fromClient.String(), `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`) {
		t.Errorf("the client sent no session/cancel:\n%s", fromClient)
	}
	// The agent's handler saw its context end and answered as ACP asks;
	// the answer reached the client after the call had given up on it.
	if err := <-late; !strings.Contains(err.Error(), "no call is waiting for") {
		t.Errorf("the client reported %v, want the late answer", err)
	}
	if !strings.Contains(fromAgent.String(), `"result":{"stopReason":"cancelled"}`) {
		t.Errorf("the agent did not answer the cancelled turn with stopReason cancelled:\n%s", fromAgent)
	}
}

// raw is params sent as they are.
type raw string

func (r raw) EncodeWire(e *wire.Encoder) { e.Raw([]byte(r)) }

func TestBadParamsAndUnknownMethods(t *testing.T) {
	client, _, _, _ := connect(t, &testAgent{waiting: make(chan struct{})}, &testClient{})
	ctx := context.Background()
	err := client.Conn().Call(ctx, acprpc.MethodSessionPrompt, raw(`{"sessionId":"s1","prompt":[{"type":"text","text":5}]}`), nil, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.InvalidParams || !strings.Contains(rpcErr.Message, "/prompt/0/text") {
		t.Errorf("bad params: %v, want InvalidParams at /prompt/0/text", err)
	}
	_, err = client.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: "s1", Cwd: "/w", MCPServers: []acp.MCPServer{}})
	if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.MethodNotFound}) {
		t.Errorf("unimplemented method: %v, want MethodNotFound", err)
	}
	err = client.Conn().Call(ctx, "_vendor/thing", nil, nil, nil)
	if !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.MethodNotFound}) {
		t.Errorf("extension method: %v, want MethodNotFound", err)
	}
}
