package arcp

import (
	"fmt"
	"testing"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// envelope parses one line into the message the engine would annotate.
func envelope(t *testing.T, line int, text string) *protocol.Message {
	t.Helper()
	var a jsonscan.Arena
	d, err := a.Parse([]byte(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	return &protocol.Message{Line: line, Data: []byte(text), Doc: d}
}

// TestAnnotatePairsSubmitsByTraceID: a job.accepted answers the
// job.submit whose trace_id it echoes, once, and begins the job's
// lifecycle on the submit's line; the submits remembered are bounded.
func TestAnnotatePairsSubmitsByTraceID(t *testing.T) {
	an := (*Rules)(nil).Annotator()
	submit := func(line int, tid string) {
		if _, ok := an.Annotate(envelope(t, line, fmt.Sprintf(`{"arcp":"1","type":"job.submit","session_id":"s","trace_id":%q,"payload":{"agent":"a"}}`, tid))); !ok {
			t.Fatal("a job.submit was not read")
		}
	}
	accept := func(line int, tid, job string) protocol.Annotation {
		a, _ := an.Annotate(envelope(t, line, fmt.Sprintf(`{"arcp":"1","type":"job.accepted","session_id":"s","trace_id":%q,"job_id":%q}`, tid, job)))
		return a
	}
	submit(3, "tr1")
	a := accept(4, "tr1", "j1")
	if a.Answers != 3 || len(a.Steps) != 2 || a.Steps[0] != (protocol.Step{Kind: "job", ID: "j1", Group: "session s", State: "job.submit", Line: 3}) || a.Steps[1].Line != 4 {
		t.Errorf("accepted: %+v", a)
	}
	if a.Brief != "job.accepted" || fmt.Sprint(a.Groups) != "[session s job j1]" {
		t.Errorf("brief %q, groups %q", a.Brief, a.Groups)
	}
	if a := accept(5, "tr1", "j1"); a.Answers != 0 || len(a.Steps) != 1 {
		t.Errorf("a second job.accepted of the same trace_id was paired: %+v", a)
	}
	for i := range maxAnnotatedSubmits + 1 {
		submit(10+i, fmt.Sprint("t", i))
	}
	if a := accept(1e6, fmt.Sprint("t", maxAnnotatedSubmits-1), "j2"); a.Answers != 10+maxAnnotatedSubmits-1 {
		t.Errorf("the last submit within the bound is not paired: %+v", a)
	}
	if a := accept(1e6+1, fmt.Sprint("t", maxAnnotatedSubmits), "j3"); a.Answers != 0 {
		t.Errorf("a submit past the bound was remembered: %+v", a)
	}
	if _, ok := an.Annotate(envelope(t, 1, `{"type":"job.submit"}`)); ok {
		t.Error("a message without \"arcp\" was read as ARCP")
	}
}
