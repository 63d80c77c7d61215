package htmlreport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/schema/registry"
)

// build checks trace (named name) with the engine and returns the page.
func build(t *testing.T, o Options, name, trace string) (*Report, string) {
	t.Helper()
	e, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Protocols == nil {
		o.Protocols = drawings(t)
	}
	r := New(o)
	sum, err := e.Check(context.Background(), name, strings.NewReader(trace), validate.FileOptions{Message: func(m validate.MessageInfo) { r.Message(name, message(m)) }}, r.Finding)
	if err != nil {
		t.Fatal(err)
	}
	r.End(name, sum)
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return r, buf.String()
}

// drawings are the lanes of the protocols, as the registry names them
// (as pkg/validate/report passes them, which this package's tests cannot
// import).
func drawings(t *testing.T) []Protocol {
	t.Helper()
	reg, err := registry.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var out []Protocol
	for _, name := range reg.Protocols() {
		p := reg.Protocol(name)
		out = append(out, Protocol{Name: name, Lanes: p.Lanes, OneWay: p.OneWay})
	}
	return out
}

// message is the record the engine tells, as the page takes it (as
// pkg/validate/report makes it, which this package's tests cannot import).
func message(m validate.MessageInfo) Message {
	a := m.Annotation
	out := Message{Line: m.Line, Data: m.Data, Label: m.Label, From: m.From, Answers: m.Answers, Parsed: m.Parsed,
		Brief: a.Brief, Groups: a.Groups, Peer: a.Peer, Pairs: a.Answers}
	for _, s := range a.Steps {
		out.Steps = append(out.Steps, Step(s))
	}
	return out
}

var scriptRE = regexp.MustCompile(`(?s)<script([^>]*)>(.*?)</script>`)
var styleRE = regexp.MustCompile(`(?s)<style>(.*?)</style>`)

// jsReport is the page's data as a test reads it: the overview, and the
// traces whose messages the page holds, in the order of its lines.
type jsReport struct {
	jsHead
	List   [][]any `json:"list"`
	Traces []*jsTrace
}

// pageData returns the report's data as the page's script reads it: the
// overview on the first line, a trace on each line after it.
func pageData(t testing.TB, page string) jsReport {
	t.Helper()
	var d jsReport
	for _, m := range scriptRE.FindAllStringSubmatch(page, -1) {
		if !strings.Contains(m[1], `id="report-data"`) {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(m[2], "\n"), "\n")
		if err := json.Unmarshal([]byte(lines[0]), &d); err != nil {
			t.Fatalf("the report's overview is not JSON: %v", err)
		}
		for i, l := range lines[1:] {
			var tr jsTrace
			if err := json.Unmarshal([]byte(l), &tr); err != nil {
				t.Fatalf("line %d of the report's data is not JSON: %v", i+2, err)
			}
			d.Traces = append(d.Traces, &tr)
		}
		return d
	}
	t.Fatal("no report-data element")
	return d
}

const session = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"ed","version":"1.2"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[],"agentInfo":{"name":"ag","title":"Agent","version":"0.3"}}}
{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}
{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}
`

// TestPolicyAllowsOnlyThePage: the Content-Security-Policy names the hash
// of the page's one script and one style sheet, exactly as written, and
// allows nothing else to load or run.
func TestPolicyAllowsOnlyThePage(t *testing.T) {
	_, page := build(t, Options{}, "s.jsonl", session)
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Content-Security-Policy")
	}
	policy := strings.ReplaceAll(m[1], "&#39;", "'")
	sha := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
	}
	var runs []string
	for _, s := range scriptRE.FindAllStringSubmatch(page, -1) {
		if s[1] == "" {
			runs = append(runs, s[2])
		}
	}
	if len(runs) != 1 {
		t.Fatalf("%d scripts that run, want 1", len(runs))
	}
	styles := styleRE.FindAllStringSubmatch(page, -1)
	if len(styles) != 1 {
		t.Fatalf("%d style elements, want 1", len(styles))
	}
	want := "default-src 'none'; script-src " + sha(runs[0]) + "; style-src " + sha(styles[0][1]) + "; img-src 'none'; base-uri 'none'; form-action 'none'"
	if policy != want {
		t.Errorf("policy\n%s\nwant\n%s", policy, want)
	}
}

// TestTraceTextIsData: markup in a trace and in its name reaches the page
// only inside the JSON data, with < > & escaped, and comes back unchanged.
func TestTraceTextIsData(t *testing.T) {
	evil := `</script><script>alert(1)</script><img src=x onerror=alert(2)>&amp;` + "\u202e"
	name := evil + ".jsonl"
	var qb bytes.Buffer
	enc := json.NewEncoder(&qb)
	enc.SetEscapeHTML(false)
	enc.Encode(evil)
	q := strings.TrimSpace(qb.String())
	trace := session + fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%s}}}}`+"\n", q) +
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":%s,"params":{}}`+"\n", q)
	_, page := build(t, Options{Title: evil}, name, trace)
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("%d script elements, want 2 (the data and the page's script)", n)
	}
	for _, bad := range []string{"<img", "alert(1)</script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q outside escaped data", bad)
		}
	}
	d := pageData(t, page)
	tr := d.Traces[0]
	if !strings.HasPrefix(tr.Name, `</script><script>alert(1)</script><img src=x onerror=alert(2)>&amp;\u202e`) {
		t.Errorf("name %q", tr.Name)
	}
	if got := tr.Rows[4][8].(string); !strings.Contains(got, `</script><script>alert(1)</script><img src=x onerror=alert(2)>&amp;\u202e`) {
		t.Errorf("line 5 text %q", got)
	}
	found := false
	for _, f := range tr.Findings {
		found = found || f[0].(float64) == 6
	}
	if !found {
		t.Errorf("no finding on the unknown method of line 6: %v", tr.Findings)
	}
}

// TestPeersLinksAndLifecycles: the implementations come from initialize,
// a response links to its request, a session groups its messages, and a
// tool call's updates make one lifecycle.
func TestPeersLinksAndLifecycles(t *testing.T) {
	trace := session + `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read","status":"pending"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}}}
`
	_, page := build(t, Options{}, "s.jsonl", trace)
	tr := pageData(t, page).Traces[0]
	if tr.Peers["client"] != "ed 1.2" || tr.Peers["agent"] != "Agent (ag) 0.3" {
		t.Errorf("peers %v", tr.Peers)
	}
	if tr.Protocol != "acp" || tr.Dialect != "v1" || tr.Note == "" {
		t.Errorf("read as %q %q (%q)", tr.Protocol, tr.Dialect, tr.Note)
	}
	r4 := tr.Rows[3]
	if r4[1].(float64) != 4 || r4[2] != "a" || r4[5].(float64) != 3 {
		t.Errorf("line 4: %v, want from the agent, answering line 3", r4)
	}
	if len(tr.Groups) != 1 || tr.Groups[0] != "session s1" {
		t.Errorf("groups %v", tr.Groups)
	}
	if len(tr.Lives) != 1 || tr.Lives[0][0] != "tool call" || tr.Lives[0][1] != "c1" || len(tr.Lives[0][3].([]any)) != 2 {
		t.Errorf("lifecycles %v", tr.Lives)
	}
}

// TestBoundKeepsEveryFinding: past the bound, every finding stays with the
// messages around it, and the report counts and names what it left out.
func TestBoundKeepsEveryFinding(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(session)
	chunk := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`
	bad := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":7}}}}`
	for i := 5; i <= 400; i++ {
		if i == 200 || i == 350 {
			sb.WriteString(bad + "\n")
		} else {
			sb.WriteString(chunk + "\n")
		}
	}
	_, page := build(t, Options{MaxRows: 50, Context: 2}, "big.jsonl", sb.String())
	tr := pageData(t, page).Traces[0]
	kept := map[int]bool{}
	for _, r := range tr.Rows {
		kept[int(r[1].(float64))] = true
	}
	for _, l := range []int{198, 199, 200, 201, 202, 348, 349, 350, 351, 352} {
		if !kept[l] {
			t.Errorf("line %d, near a finding, was left out", l)
		}
	}
	if kept[100] || kept[300] {
		t.Error("lines far from findings were kept past the bound")
	}
	if len(tr.Rows)+tr.Omitted != 400 || !tr.Bounded {
		t.Errorf("%d kept + %d omitted, want 400 in all", len(tr.Rows), tr.Omitted)
	}
	if len(tr.Findings) != 2 {
		t.Errorf("%d findings, want 2", len(tr.Findings))
	}
	if len(tr.Ranges) != 3 || tr.Ranges[0] != [2]int{51, 197} || tr.Ranges[1] != [2]int{203, 347} || tr.Ranges[2] != [2]int{353, 400} {
		t.Errorf("ranges left out %v", tr.Ranges)
	}
}

// TestLongLineIsCut: a line over MaxLine keeps its first MaxLine bytes,
// and the row and the trace say how much was cut.
func TestLongLineIsCut(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("a", 5000) + `"}}}}`
	_, page := build(t, Options{MaxLine: 1000}, "s.jsonl", session+long+"\n")
	tr := pageData(t, page).Traces[0]
	r := tr.Rows[4]
	if got := len(r[8].(string)); got != 1000 || int(r[9].(float64)) != len(long)-1000 || tr.Cut != 1 {
		t.Errorf("kept %d bytes, cut %v, trace cut %d; want 1000, %d, 1", got, r[9], tr.Cut, len(long)-1000)
	}
	if r[3] != "session/update" {
		t.Errorf("the cut line lost its type: %v", r[3])
	}
}

// TestMessagesDrawnAsTold: the page draws what comes with each message,
// knowing no protocol: its brief, groups and peer; a lifecycle's steps,
// one on an earlier line included, the row linking only to the steps on
// its own line; the line a protocol pairs a message with where the engine
// paired none; and the lanes Options.Protocols gives.
func TestMessagesDrawnAsTold(t *testing.T) {
	r := New(Options{Protocols: []Protocol{{Name: "toy", Lanes: [2]string{"asker", "teller"}, OneWay: true}}})
	r.Message("t", Message{Line: 1, Data: []byte(`{"ask":1}`), Parsed: true, Brief: "ask 1", Groups: []string{"room r"},
		Peer: finding.Peer{Side: "client", Name: "Asker 1.0"}})
	r.Message("t", Message{Line: 2, Data: []byte(`{"told":1}`), Parsed: true, Brief: "told", Groups: []string{"room r", "job j"}, Pairs: 1,
		Steps: []Step{{Kind: "job", ID: "j", Group: "room r", State: "asked", Line: 1}, {Kind: "job", ID: "j", Group: "room r", State: "told", Line: 2}}})
	r.Message("t", Message{Line: 3, Data: []byte(`{"told":2}`), Parsed: true, Answers: 1, Pairs: 2,
		Steps: []Step{{Kind: "job", ID: "j", Group: "room r", State: "told", Line: 3}}})
	r.End("t", finding.Summary{Files: 1, Lines: 3, Messages: 3, Detected: []finding.Detected{{File: "t", Protocol: "toy"}}})
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	tr := pageData(t, buf.String()).Traces[0]
	if tr.Lanes != [2]string{"asker", "teller"} || tr.Peers["client"] != "Asker 1.0" || strings.Join(tr.Groups, ",") != "room r,job j" {
		t.Errorf("lanes %q, peers %v, groups %q", tr.Lanes, tr.Peers, tr.Groups)
	}
	want := []string{
		`[0,1,"a","","ask 1",0,[0],[],"{\"ask\":1}",0]`,
		`[1,2,"a","","told",1,[0,1],[0],"{\"told\":1}",0]`,
		`[2,3,"a","","",1,[],[0],"{\"told\":2}",0]`,
	}
	for i, rw := range tr.Rows {
		b, _ := json.Marshal(rw)
		if string(b) != want[i] {
			t.Errorf("row %d: %s, want %s", i, b, want[i])
		}
	}
	if got := fmt.Sprint(tr.Lives); got != "[[job j room r [[1 asked 0] [2 told 1]] 0]]" {
		t.Errorf("lifecycles %s", got)
	}
}
