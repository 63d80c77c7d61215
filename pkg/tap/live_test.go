package tap

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
)

// session is a short ACP exchange with one faulty agent message (line 4:
// a session/update without its content).
var session = []struct {
	d    Direction
	line string
}{
	{ClientToAgent, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1"}}}`},
	{AgentToClient, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{},"authMethods":[]}}`},
	{ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/home/dev","mcpServers":[]}}`},
	{AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk"}}}`},
	{AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`},
}

func findingStrings(fs []validate.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s:%d %s %s %s %s", f.File, f.Line, f.Severity, f.Rule, f.Pointer, f.Message))
	}
	return out
}

func TestLiveFindingsEqualALaterCheck(t *testing.T) {
	eng, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var live []validate.Finding
	l := StartLive(context.Background(), eng, "s.jsonl", "", 0, func(f validate.Finding) { live = append(live, f) })
	var trace, dirs bytes.Buffer
	for _, m := range session {
		l.Line(m.d, []byte(m.line+"\n"))
		trace.WriteString(m.line + "\n")
		dirs.WriteString(m.d.String() + "\n")
	}
	sum, st, err := l.Close()
	if err != nil {
		t.Fatalf("Close: %v", err)
	}
	if st.Lines != len(session) || st.StoppedAt != 0 {
		t.Errorf("stats %+v", st)
	}
	var later []validate.Finding
	lsum, err := eng.Check(context.Background(), "s.jsonl", &trace, validate.FileOptions{Directions: &dirs}, func(f validate.Finding) { later = append(later, f) })
	if err != nil {
		t.Fatal(err)
	}
	got, want := strings.Join(findingStrings(live), "\n"), strings.Join(findingStrings(later), "\n")
	if got != want {
		t.Errorf("live findings differ from a later check:\nlive:\n%s\nlater:\n%s", got, want)
	}
	if sum.Errors != lsum.Errors || sum.Errors == 0 {
		t.Errorf("errors: live %d, later %d; want equal and the faulty update found", sum.Errors, lsum.Errors)
	}
	found := false
	for _, f := range live {
		found = found || (f.Line == 4 && f.Severity == validate.Error)
	}
	if !found {
		t.Errorf("the faulty agent message (line 4) was not reported: %s", got)
	}
}

func TestLiveGivesUpInsteadOfBlocking(t *testing.T) {
	eng, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var reported int
	block := make(chan struct{})
	// The report callback holds the engine until the lines are all
	// queued: the queue must overflow, and Line must not wait.
	l := StartLive(context.Background(), eng, "s.jsonl", "", 4096, func(validate.Finding) {
		<-block
		reported++
	})
	line := []byte(session[3].line + "\n")
	for i := 0; i < 5000; i++ {
		l.Line(AgentToClient, line)
	}
	close(block)
	_, st, err := l.Close()
	if err == nil || st.StoppedAt == 0 {
		t.Fatalf("Close: %v, stats %+v; want validation stopped", err, st)
	}
	if st.Lines != 5000 {
		t.Errorf("Lines = %d, want 5000", st.Lines)
	}
	if st.StoppedAt > 5000 || st.StoppedAt < 2 {
		t.Errorf("StoppedAt = %d", st.StoppedAt)
	}
}

func TestARCPTrafficGetsARCPDirections(t *testing.T) {
	if n := SidecarNames("", []byte(`{"arcp":"1.1","id":"m1","type":"session.hello","payload":{}}`)); n != [2]string{"c2r", "r2c"} {
		t.Errorf("ARCP envelope: %v", n)
	}
	if n := SidecarNames("", []byte(session[0].line)); n != [2]string{"c2a", "a2c"} {
		t.Errorf("ACP message: %v", n)
	}
	if n := SidecarNames("arcp", []byte(session[0].line)); n != [2]string{"c2r", "r2c"} {
		t.Errorf("forced arcp: %v", n)
	}
	var rec, dirs bytes.Buffer
	r := newRecorder(Config{Record: &rec, Directions: &dirs})
	r.chunk(ClientToAgent, []byte(`{"arcp":"1.1","id":"m1","type":"session.hello","payload":{}}`+"\n"))
	r.chunk(AgentToClient, []byte(`{"arcp":"1.1","id":"m2","type":"session.welcome","payload":{}}`+"\n"))
	r.finish()
	if dirs.String() != "c2r\nr2c\n" {
		t.Errorf("sidecar %q, want ARCP's names", dirs.String())
	}
}
