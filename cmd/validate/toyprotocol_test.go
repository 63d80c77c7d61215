package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/validate/report"
	"github.com/agentproto/agentproto/schema/registry"
)

// The toy protocol is a protocol added from outside every list: its own
// schema folder (versions.json, a dispatch table, one message schema), its
// own table kind for the registry, its own rules with one state rule, and
// the one registration the engine is given (validate.Options through the
// CLI's plugins). Its findings must come out of every output format.

const toyPrefix = "https://example.test/schema/"

// toySchemas is the toy protocol's schema folder.
var toySchemas = fstest.MapFS{
	"versions.json": {Data: []byte(`{"protocols": [
  {"name": "toy", "messages": "Toy messages", "marks": ["toy"], "sides": ["client", "agent"], "lanes": ["pinger", "ponger"]}
], "versions": [
  {"protocol": "toy", "name": "v1", "folder": "toy/v1", "package": "example.test/toy", "title": "Toy v1", "stable": true, "default": true}
]}`)},
	"toy/v1/dispatch.json": {Data: []byte(`{"protocol": "toy", "version": "v1",
  "messages": [{"type": "ping", "schema": "ping.json"}, {"type": "pong", "schema": "ping.json"}]}`)},
	"toy/v1/ping.json": {Data: []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://example.test/schema/toy/v1/ping.json",
  "title": "Ping",
  "type": "object",
  "required": ["toy", "type", "n"],
  "properties": {"toy": {"const": 1}, "type": {"enum": ["ping", "pong"]}, "n": {"type": "integer"}}
}`)},
	"toy/v1/requirements.json": {Data: []byte(`{"protocol": "toy", "version": "v1", "source": "toy/spec.md",
  "requirements": [{"id": "toy.order.pong-after-ping", "level": "MUST", "side": "either", "doc": "toy/spec.md",
    "section": "Ping and pong", "summary": "A pong answers a ping sent before it.", "observe": "passive"}]}`)},
}

// toyRow is the toy catalogue's row that the toy-order rule checks.
const toyRow = "toy.order.pong-after-ping"

// toyTable is the toy protocol's dispatch table.
type toyTable struct {
	Protocol string `json:"protocol"`
	Version  string `json:"version"`
	Messages []struct {
		Type   string `json:"type"`
		Schema string `json:"schema"`
	} `json:"messages"`
}

// toyKind reads the toy protocol's tables.
var toyKind = registry.Kind{Protocol: "toy", Load: func(fsys fs.FS, v *registry.Version, b []byte, check bool) (any, error) {
	t := &toyTable{}
	if err := registry.StrictUnmarshal(b, t); err != nil {
		return nil, err
	}
	for _, m := range t.Messages {
		if err := registry.CheckFile(check, fsys, v, "message "+m.Type, m.Schema); err != nil {
			return nil, err
		}
	}
	return t, nil
}}

const ruleToyOrder = "toy-order"

// toyProtocol is the engine's registration of the toy protocol.
var toyProtocol = validate.Protocol{
	Name: "toy",
	Rules: func(reg *registry.Registry, s *protocol.Schemas) protocol.Rules {
		return &toyRules{reg: reg, schemas: s}
	},
	Docs: func() []protocol.RuleDoc {
		return []protocol.RuleDoc{{Name: ruleToyOrder, Summary: "a pong answers a ping sent before it", Requirements: []string{toyRow}}}
	},
}

type toyRules struct {
	reg     *registry.Registry
	schemas *protocol.Schemas
}

func (*toyRules) Name() string                           { return "toy" }
func (*toyRules) Identify(o map[string]any) bool         { _, ok := o["toy"]; return ok }
func (r *toyRules) Dialects() []string                   { return r.reg.DialectNames("toy") }
func (*toyRules) Directions() []string                   { return nil }
func (*toyHandler) Lost(*protocol.Message)               {}
func (*toyHandler) Finish(int) []finding.Finding         { return nil }
func (h *toyHandler) Dialect() string                    { return h.v.Name }
func (*toyHandler) Note() string                         { return "" }
func (h *toyHandler) schema(typ string) *protocol.Schema { return h.byType[typ] }

func (r *toyRules) Start(_ []*protocol.Message, opts protocol.Start) (protocol.Handler, error) {
	v := r.reg.Default("toy")
	if w := r.reg.Lookup("toy", opts.Dialect); w != nil {
		v = w
	}
	t, ok := v.Table.(*toyTable)
	if !ok {
		return nil, fmt.Errorf("%s has no toy table", v)
	}
	h := &toyHandler{v: v, byType: map[string]*protocol.Schema{}}
	for _, m := range t.Messages {
		s, err := r.schemas.Get(v.SchemaID(m.Schema))
		if err != nil {
			return nil, err
		}
		h.byType[m.Type] = s
	}
	return h, nil
}

type toyHandler struct {
	v      *registry.Version
	byType map[string]*protocol.Schema
	pings  int
}

func (h *toyHandler) Step(m *protocol.Message) {
	typ, _ := m.String("/type")
	m.Label = typ
	if s := h.schema(typ); s != nil {
		m.Checks = append(m.Checks, protocol.Check{Schema: s})
	}
	switch typ {
	case "ping":
		h.pings++
	case "pong":
		if h.pings == 0 {
			m.Add(finding.Error, ruleToyOrder, "/type", "a pong with no ping before it: send the ping first")
		}
		h.pings = max(h.pings-1, 0)
	}
}

// toyFormat is an output format of its own: one line per finding, and a
// count at the end.
type toyFormat struct {
	w   io.Writer
	err error
}

func (t *toyFormat) Finding(f validate.Finding) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, "TOY %s:%d %s %s\n", f.File, f.Line, f.Rule, f.Pointer)
	}
}
func (t *toyFormat) EndTrace(string, validate.Summary) {}
func (t *toyFormat) End(s report.Totals) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, "TOY %d errors\n", s.Errors)
	}
}
func (t *toyFormat) Flush() error { return t.err }
func (t *toyFormat) Err() error   { return t.err }
func (t *toyFormat) Close() error { return t.err }

var toyOutput = report.Format{Name: "toy", Live: true, New: func(w io.Writer, _ report.Options) report.Writer { return &toyFormat{w: w} }}

func toyTrace(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "toy.jsonl")
	trace := `{"toy":1,"type":"pong","n":1}
{"toy":1,"type":"ping","n":"two"}
{"toy":1,"type":"pong","n":3}
`
	if err := os.WriteFile(file, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestToyProtocol(t *testing.T) {
	reg, err := registry.Load(toySchemas, toyPrefix, toyKind)
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.Protocols(); !strings.Contains(strings.Join(got, ","), "toy") {
		t.Fatalf("registry protocols %v lack toy", got)
	}
	pl := plugins{registry: reg, protocols: []validate.Protocol{toyProtocol}, formats: []report.Format{toyOutput}}
	file := toyTrace(t)
	for _, f := range append(report.Formats(), toyOutput) {
		t.Run(f.Name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--format", f.Name, file}, strings.NewReader(""), &stdout, &stderr, pl)
			if code != exitFindings {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitFindings, stderr.String())
			}
			out := stdout.String()
			// The state rule on line 1 and the schema check of the
			// ping's n on line 2, whatever the format.
			for _, want := range []string{ruleToyOrder, "schema", "toy.jsonl"} {
				if !strings.Contains(out, want) {
					t.Errorf("--format %s output lacks %q:\n%s", f.Name, want, out)
				}
			}
			if f.Name != "toy" && !strings.Contains(out, "send the ping first") {
				t.Errorf("--format %s output lacks the rule's message:\n%s", f.Name, out)
			}
			// The page draws the toy's lanes as its registry names them.
			if lanes := `"lanes":["pinger","ponger"]`; f.Name == "html" && !strings.Contains(out, lanes) {
				t.Errorf("--format html draws no lanes %s", lanes)
			}
		})
	}
	// SARIF describes the toy rule from its registration and lists the
	// catalogue row it checks, with its citation, from the toy registry.
	var sarif bytes.Buffer
	run(context.Background(), []string{"--format", "sarif", file}, strings.NewReader(""), &sarif, &bytes.Buffer{}, pl)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []sarifRule `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("--format sarif: %v\n%s", err, sarif.String())
	}
	var toyRule *sarifRule
	for i, r := range log.Runs[0].Tool.Driver.Rules {
		if r.ID == ruleToyOrder {
			toyRule = &log.Runs[0].Tool.Driver.Rules[i]
		}
	}
	switch {
	case toyRule == nil:
		t.Errorf("--format sarif has no rule %s:\n%s", ruleToyOrder, sarif.String())
	case toyRule.Properties == nil || len(toyRule.Properties.Requirements) != 1:
		t.Errorf("SARIF rule %s lists the rows %+v, want %s", ruleToyOrder, toyRule.Properties, toyRow)
	default:
		want := sarifRequirement{ID: toyRow, Level: "MUST", Citation: "toy/spec.md § Ping and pong"}
		if got := toyRule.Properties.Requirements[0]; got != want {
			t.Errorf("SARIF rule %s row %+v, want %+v", ruleToyOrder, got, want)
		}
		if toyRule.FullDescription.Text != "a pong answers a ping sent before it" {
			t.Errorf("SARIF rule %s described as %q, want its registration's summary", ruleToyOrder, toyRule.FullDescription.Text)
		}
	}

	// The toy format, exactly.
	var stdout bytes.Buffer
	run(context.Background(), []string{"--format", "toy", file}, strings.NewReader(""), &stdout, &bytes.Buffer{}, pl)
	want := fmt.Sprintf("TOY %s:1 toy-order /type\nTOY %s:2 schema /n\nTOY 2 errors\n", file, file)
	if stdout.String() != want {
		t.Errorf("--format toy:\n%s\nwant:\n%s", stdout.String(), want)
	}
}

// TestToyFormatRealTrace: the toy output format prints a built-in
// protocol's findings too, registered only through the plugins.
func TestToyFormatRealTrace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "acp.jsonl")
	trace := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"one"}}
`
	if err := os.WriteFile(file, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--format", "toy", file}, strings.NewReader(""), &stdout, &stderr, plugins{formats: []report.Format{toyOutput}})
	if code != exitFindings || !strings.HasPrefix(stdout.String(), "TOY "+file+":1 schema /params/protocolVersion\n") {
		t.Fatalf("exit %d, output:\n%s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	code = run(context.Background(), []string{"--format", "toy", file}, strings.NewReader(""), &stdout, &stderr, plugins{})
	if code != exitUsage || !strings.Contains(stderr.String(), `unknown --format "toy"`) {
		t.Fatalf("without the registration: exit %d, stderr: %s", code, stderr.String())
	}
}

// TestToyUnrecognised: a trace none of the run's protocols recognises is
// told what marks each of them, the plugged-in ones rather than the
// built-in list.
func TestToyUnrecognised(t *testing.T) {
	reg, err := registry.Load(toySchemas, toyPrefix, toyKind)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "hello.jsonl")
	if err := os.WriteFile(file, []byte(`{"hello":"world"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pl   plugins
		want string
	}{
		{plugins{}, `no protocol recognised: ACP messages have "jsonrpc", ARCP messages "arcp" and "type", Arcan events "part_type"; the first JSON value here has the fields "hello"`},
		{plugins{registry: reg, protocols: []validate.Protocol{toyProtocol}}, `no protocol recognised: Toy messages have "toy"; the first JSON value here has the fields "hello"`},
	} {
		var stdout bytes.Buffer
		run(context.Background(), []string{"--summary=false", file}, strings.NewReader(""), &stdout, &bytes.Buffer{}, c.pl)
		if !strings.Contains(stdout.String(), c.want) {
			t.Errorf("got %q, want it to say %q", stdout.String(), c.want)
		}
	}
}
