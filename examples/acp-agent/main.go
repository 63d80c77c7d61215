// Command acp-agent is a minimal ACP agent: it streams, asks, and reads a file through the editor.
package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/acp/acprpc"
	"github.com/agentproto/agentproto/pkg/wire"
)

type agent struct {
	acprpc.UnimplementedAgent
	client  *acprpc.AgentSide
	cwd     string
	canRead bool // the client serves fs/read_text_file
}

func (a *agent) Initialize(_ context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	c, yes := p.ClientCapabilities, true
	a.canRead = c != nil && c.Fs != nil && c.Fs.ReadTextFile != nil && *c.Fs.ReadTextFile
	return &acp.InitializeResponse{ProtocolVersion: 1, AgentInfo: wire.Some(acp.Implementation{Name: "acp-agent", Version: "0.1.0"}),
		AgentCapabilities: &acp.AgentCapabilities{PromptCapabilities: &acp.PromptCapabilities{Image: &yes, Audio: &yes, EmbeddedContext: &yes}},
		AuthMethods:       []acp.AuthMethod{&acp.AuthMethodAgent{ID: "none", Name: "No login"}}}, nil
}

func (a *agent) Authenticate(context.Context, *acp.AuthenticateRequest) (*acp.AuthenticateResponse, error) {
	return &acp.AuthenticateResponse{}, nil
}

func (a *agent) SessionNew(_ context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	a.cwd = p.Cwd
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *agent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	path := filepath.Join(a.cwd, "src", "parser.ts")
	say := func(text string) {
		_ = a.client.SessionUpdate(ctx, &acp.SessionNotification{SessionID: p.SessionID, Update: &acp.AgentMessageChunk{Content: &acp.TextContent{Text: text}}})
	}
	say("May I read " + path + "?")
	perm, err := a.client.SessionRequestPermission(ctx, &acp.RequestPermissionRequest{SessionID: p.SessionID, ToolCall: acp.ToolCallUpdate{ToolCallID: "read"},
		Options: []acp.PermissionOption{{OptionID: "allow-once", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}, {OptionID: "reject-once", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce}}})
	if err != nil {
		return nil, err // a cancelled turn answers stopReason cancelled
	}
	if sel, ok := perm.Outcome.(*acp.SelectedPermissionOutcome); ok && sel.OptionID == "allow-once" && a.canRead {
		if file, err := a.client.FsReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: p.SessionID, Path: path}); err == nil {
			say("It reads:\n" + file.Content)
		}
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func main() {
	side := acprpc.NewAgentSide(os.Stdin, os.Stdout)
	_ = side.Serve(context.Background(), &agent{client: side})
}
