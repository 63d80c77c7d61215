// Command acp-client is a minimal ACP client: it runs an agent, sends it one
// prompt per argument, prints what the agent streams, allows what it asks
// permission for once, and serves its file reads and writes from disk.
//
//	acp-client [-cwd DIR] PROMPT... -- AGENT [ARGS...]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/acp/acprpc"
	"github.com/agentproto/agentproto/pkg/jsonrpc"
	"github.com/agentproto/agentproto/pkg/wire"
)

type client struct{ acprpc.UnimplementedClient }

func (client) SessionUpdate(_ context.Context, p *acp.SessionNotification) error {
	switch u := p.Update.(type) {
	case *acp.AgentMessageChunk:
		if t, ok := u.Content.(*acp.TextContent); ok {
			fmt.Println("agent:", t.Text)
		}
	case *acp.ToolCall:
		fmt.Printf("tool call %s: %s\n", u.ToolCallID, u.Title)
	default:
		fmt.Printf("update %T\n", u)
	}
	return nil
}

func (client) SessionRequestPermission(_ context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	i := slices.IndexFunc(p.Options, func(o acp.PermissionOption) bool { return o.Kind == acp.PermissionOptionKindAllowOnce })
	if i < 0 {
		return &acp.RequestPermissionResponse{Outcome: &acp.CancelledPermissionOutcome{}}, nil
	}
	fmt.Println("allowed once:", p.Options[i].Name)
	return &acp.RequestPermissionResponse{Outcome: &acp.SelectedPermissionOutcome{OptionID: p.Options[i].OptionID}}, nil
}

func (client) FsReadTextFile(_ context.Context, p *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	data, err := os.ReadFile(p.Path)
	if err != nil {
		return nil, jsonrpc.Errorf(-32002, "resource not found: %s", p.Path)
	}
	return &acp.ReadTextFileResponse{Content: string(data)}, nil
}

func (client) FsWriteTextFile(_ context.Context, p *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	if err := os.WriteFile(p.Path, []byte(p.Content), 0o644); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.InternalError, "writing %s: %v", p.Path, err)
	}
	return &acp.WriteTextFileResponse{}, nil
}

func main() {
	cwd := flag.String("cwd", ".", "the session's working directory")
	flag.Parse()
	args := flag.Args()
	dash := slices.Index(args, "--")
	if dash < 0 || dash == len(args)-1 {
		fmt.Fprintln(os.Stderr, "usage: acp-client [-cwd DIR] PROMPT... -- AGENT [ARGS...]")
		os.Exit(2)
	}
	if err := run(args[:dash], args[dash+1:], *cwd); err != nil {
		fmt.Fprintln(os.Stderr, "acp-client:", err)
		os.Exit(1)
	}
}

// authenticate uses the first method the agent runs itself; failing that,
// the first terminal method, run as ACP says: the agent's own command with
// the method's arguments and environment, in this terminal.
func authenticate(ctx context.Context, agent *acprpc.ClientSide, methods []acp.AuthMethod, agentCmd []string) error {
	var term *acp.AuthMethodTerminal
	for _, m := range methods {
		switch m := m.(type) {
		case *acp.AuthMethodAgent:
			_, err := agent.Authenticate(ctx, &acp.AuthenticateRequest{MethodID: m.ID})
			return err
		case *acp.AuthMethodTerminal:
			if term == nil {
				term = m
			}
		}
	}
	if term == nil {
		return nil
	}
	login := exec.Command(agentCmd[0], append(slices.Clone(agentCmd[1:]), term.Args...)...)
	login.Stdin, login.Stdout, login.Stderr = os.Stdin, os.Stdout, os.Stderr
	login.Env = login.Environ()
	for k, v := range term.Env {
		login.Env = append(login.Env, k+"="+v)
	}
	if err := login.Run(); err != nil {
		return fmt.Errorf("the terminal login %s: %w", term.ID, err)
	}
	_, err := agent.Authenticate(ctx, &acp.AuthenticateRequest{MethodID: term.ID})
	return err
}

func run(prompts, agentCmd []string, cwd string) error {
	cmd := exec.Command(agentCmd[0], agentCmd[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	ctx := context.Background()
	agent := acprpc.NewClientSide(out, in)
	go func() { _ = agent.Serve(ctx, client{}) }()
	yes := true
	init, err := agent.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: 1, ClientCapabilities: &acp.ClientCapabilities{
		Fs:      &acp.FileSystemCapabilities{ReadTextFile: &yes, WriteTextFile: &yes},
		Auth:    &acp.AuthCapabilities{Terminal: &yes},
		Session: wire.Some(acp.ClientSessionCapabilities{ConfigOptions: wire.Some(acp.SessionConfigOptionsCapabilities{Boolean: wire.Some(acp.BooleanConfigOptionCapabilities{})})}),
	}})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := authenticate(ctx, agent, init.AuthMethods, agentCmd); err != nil {
		return fmt.Errorf("authenticate: %w", err)
	}
	sess, err := agent.SessionNew(ctx, &acp.NewSessionRequest{Cwd: cwd, MCPServers: []acp.MCPServer{}})
	if err != nil {
		return fmt.Errorf("session/new: %w", err)
	}
	for _, text := range prompts {
		res, err := agent.SessionPrompt(ctx, &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{&acp.TextContent{Text: text}}})
		if err != nil {
			return fmt.Errorf("session/prompt: %w", err)
		}
		fmt.Println("stop reason:", res.StopReason)
	}
	in.Close()
	return cmd.Wait()
}
