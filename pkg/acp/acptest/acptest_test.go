package acptest_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agentproto/agentproto/pkg/acp"
	"github.com/agentproto/agentproto/pkg/acp/acprpc"
	"github.com/agentproto/agentproto/pkg/acp/acptest"
	"github.com/agentproto/agentproto/pkg/validate"
)

// agent answers a prompt with one update; readFirst makes it read a file
// through the client first, whether or not the client can.
type agent struct {
	acprpc.UnimplementedAgent
	client    *acprpc.AgentSide
	readFirst bool
}

func (a *agent) Initialize(_ context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{ProtocolVersion: 1}, nil
}

func (a *agent) SessionNew(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}

func (a *agent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	if a.readFirst {
		if _, err := a.client.FsReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: p.SessionID, Path: "/w/a.go"}); err != nil {
			return nil, err
		}
	}
	err := a.client.SessionUpdate(ctx, &acp.SessionNotification{SessionID: p.SessionID, Update: &acp.AgentMessageChunk{Content: &acp.TextContent{Text: "done"}}})
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, err
}

type client struct{ acprpc.UnimplementedClient }

func (client) FsReadTextFile(context.Context, *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	return &acp.ReadTextFileResponse{Content: "package a"}, nil
}

// session runs a turn between a and a client over the given ends.
func session(t *testing.T, a *agent, agentR io.Reader, agentW io.Writer, clientR io.Reader, clientW io.Writer) {
	t.Helper()
	side := acprpc.NewAgentSide(agentR, agentW)
	a.client = side
	cs := acprpc.NewClientSide(clientR, clientW)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = side.Serve(context.Background(), a) }()
	go func() { defer wg.Done(); _ = cs.Serve(context.Background(), client{}) }()
	defer wg.Wait()
	defer func() {
		// End both ends: the client's input, then the agent's.
		if c, ok := clientW.(io.Closer); ok {
			c.Close()
		}
		if c, ok := agentW.(io.Closer); ok {
			c.Close()
		}
	}()
	ctx := context.Background()
	if _, err := cs.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	s, err := cs.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/w", MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.SessionPrompt(ctx, &acp.PromptRequest{SessionID: s.SessionID, Prompt: []acp.ContentBlock{&acp.TextContent{Text: "hi"}}}); err != nil {
		t.Fatal(err)
	}
}

func TestAConformingAgentPasses(t *testing.T) {
	ar, aw, cr, cw := acptest.Pipe(t)
	session(t, &agent{}, ar, aw, cr, cw)
}

// An agent that reads a file through a client that never said it can is
// caught, with the requirement, the side at fault and the line.
func TestABreachFailsTheTest(t *testing.T) {
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	check, err := acptest.New(acptest.AgentSide, ar, aw)
	if err != nil {
		t.Fatal(err)
	}
	session(t, &agent{readFirst: true}, check.Reader, check.Writer, cr, cw)
	findings, err := check.Close()
	if err != nil {
		t.Fatal(err)
	}
	var errs []validate.Finding
	for _, f := range findings {
		if f.Severity == validate.Error {
			errs = append(errs, f)
		}
	}
	if len(errs) != 1 || errs[0].Side != "agent" || errs[0].Rule != "capability" || !strings.Contains(check.Line(errs[0].Line), `"fs/read_text_file"`) {
		t.Fatalf("findings %v, want one capability error of the agent's at its fs/read_text_file", findings)
	}
	rec := &recorder{TB: t}
	acptest.Report(rec, check)
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "fs/read_text_file") || !strings.Contains(rec.errors[0], errs[0].Requirement) {
		t.Errorf("Report failed the test with %q", rec.errors)
	}
}

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Error(args ...any)         { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, fmt.Sprintf(f, a...)) }
func (r *recorder) Log(args ...any)           {}
