package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentproto/agentproto/pkg/validate"
)

// hostile is a finding whose every string comes from a hostile trace: a key
// that starts a workflow command on a new line, terminal escapes, a C1 CSI,
// a bidirectional override, invalid UTF-8 and the property separators.
var hostile = validate.Finding{
	File:     "evil\n::error::x,\x1b[2J.jsonl",
	Line:     7,
	Severity: validate.Error,
	Protocol: "acp",
	Dialect:  "v1\r::warning::",
	Rule:     "json",
	Pointer:  "/params/\n::error file=a::pwned",
	Message:  "duplicate key \"\x1b[31mred\x1b[0m\u009b2J\u202e\xff%0A\"\t",
}

func render(t *testing.T, format string, fs []validate.Finding, sum *validate.Summary) string {
	t.Helper()
	var out bytes.Buffer
	p := newWriter(format, &out)
	for _, f := range fs {
		p.Finding(f)
	}
	if sum != nil {
		p.End(Totals{Summary: *sum})
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// rawControl returns the first control character (C0 other than LF, DEL,
// C1), line separator or bidirectional control in s, or -1.
func rawControl(s string) rune {
	for _, r := range s {
		if r != '\n' && (r < 0x20 || r == 0x7f || unsafeRune(r)) {
			return r
		}
	}
	return -1
}

func TestTextOutputIsInert(t *testing.T) {
	sum := validate.Summary{Files: 1, ByType: map[string]int{"acp \x1b]0;title\x07": 1}, ByRule: map[string]int{"json": 1},
		Detected: []validate.Detected{{File: hostile.File, Protocol: "acp", Dialect: "v1", Note: "a\nb"}}}
	// -v, for the summary's messages by type.
	var out bytes.Buffer
	w := NewText(&out, Options{Verbose: true})
	w.Finding(hostile)
	w.End(Totals{Summary: sum})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	want := `evil\n::error::x,\x1b[2J.jsonl:7: error: /params/\n::error file=a::pwned: duplicate key "\x1b[31mred\x1b[0m\u009b2J\u202e\xff%0A"\t [json]` + "\n"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got\n%s\nwant it to start with\n%s", got, want)
	}
	for _, frag := range []string{`  evil\n::error::x,\x1b[2J.jsonl: acp v1`, `    a\nb`, `acp \x1b]0;title\x07`} {
		if !strings.Contains(got, frag) {
			t.Errorf("summary lacks %q:\n%s", frag, got)
		}
	}
	if r := rawControl(got); r >= 0 || !utf8.ValidString(got) {
		t.Errorf("raw control %U or invalid UTF-8 in text output:\n%q", r, got)
	}
}

func TestGitHubOutputIsInert(t *testing.T) {
	got := render(t, "github", []validate.Finding{hostile}, nil)
	want := `::error file=evil%0A%3A%3Aerror%3A%3Ax%2C\x1b[2J.jsonl,line=7,title=acp json::/params/%0A::error file=a::pwned: duplicate key "\x1b[31mred\x1b[0m\u009b2J\u202e\xff%250A"\t` + "\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestJSONOutputIsInert(t *testing.T) {
	got := render(t, "json", []validate.Finding{hostile}, nil)
	if r := rawControl(got); r >= 0 {
		t.Errorf("raw %U in JSON output: %s", r, got)
	}
	var f JSONFinding
	if err := json.Unmarshal([]byte(got), &f); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	// The same strings, but for the invalid UTF-8 byte that JSON cannot
	// carry.
	if f.File != hostile.File || f.Pointer != hostile.Pointer || f.Dialect != hostile.Dialect || f.Message != strings.ToValidUTF8(hostile.Message, "\ufffd") {
		t.Errorf("decoded %+v, want the finding's strings", f)
	}
}

// FuzzOutput renders findings whose file name, pointer and message are
// arbitrary bytes in every format: each finding is one line (one workflow
// command in github format), no raw control character gets through, JSON
// lines decode to the finding's strings, and github properties hold no bare
// separator.
func FuzzOutput(f *testing.F) {
	for _, s := range [][3]string{
		{"trace.jsonl", "/params/update", `"txt" is not one of text, image`},
		{hostile.File, hostile.Pointer, hostile.Message},
		{"a,b:c", "/~0~1", "100% \r\n next"},
		{"\xc2\x85", "\u2028\u2029", "\x00\x7f\u0080\u009f"},
		{"", "", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, file, pointer, message string) {
		fs := []validate.Finding{
			{File: file, Line: 1, Severity: validate.Error, Protocol: "acp", Dialect: "v1", Rule: "schema", Pointer: pointer, Message: message},
			{File: file, Line: 2, Severity: validate.Warning, Protocol: file, Dialect: pointer, Rule: message, Pointer: "", Message: pointer},
		}
		whole := validate.Finding{File: file, Severity: validate.Warning, Rule: message, Requirement: pointer, Side: file, Pointer: pointer, Message: message}
		for _, f := range append(fs, whole) {
			if got, want := FindingText(f), plainTextFinding(f); got != want {
				t.Fatalf("FindingText = %q, want %q", got, want)
			}
		}
		for _, format := range []string{"text", "github", "json"} {
			out := render(t, format, fs, nil)
			if r := rawControl(out); r >= 0 {
				t.Fatalf("%s: raw %U in output %q", format, r, out)
			}
			if format != "json" && !utf8.ValidString(out) {
				t.Fatalf("%s: invalid UTF-8 in output %q", format, out)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != len(fs) || !strings.HasSuffix(out, "\n") {
				t.Fatalf("%s: %d lines for %d findings: %q", format, len(lines), len(fs), out)
			}
			for i, line := range lines {
				switch format {
				case "github":
					level := "::error "
					if i == 1 {
						level = "::warning "
					}
					props, _, ok := strings.Cut(strings.TrimPrefix(line, level), "::")
					if !strings.HasPrefix(line, level) || !ok {
						t.Fatalf("line %d is not a workflow command: %q", i+1, line)
					}
					for _, p := range strings.Split(props, ",") {
						k, v, ok := strings.Cut(p, "=")
						if !ok || (k != "file" && k != "line" && k != "title") || strings.ContainsAny(v, ":,\r\n") {
							t.Fatalf("line %d: property %q not escaped: %q", i+1, p, line)
						}
					}
				case "json":
					var jf JSONFinding
					dec := json.NewDecoder(strings.NewReader(line))
					dec.DisallowUnknownFields()
					if err := dec.Decode(&jf); err != nil {
						t.Fatalf("line %d is not a JSON finding: %v: %q", i+1, err, line)
					}
					want := fs[i]
					if jf.File != validUTF8(want.File) {
						t.Fatalf("file %q read back as %q", want.File, jf.File)
					}
					if jf.Message != validUTF8(want.Message) || jf.Pointer != validUTF8(want.Pointer) {
						t.Fatalf("line %d: strings changed: %+v", i+1, jf)
					}
				}
			}
		}
	})
}

// validUTF8 is s as encoding/json writes it: each invalid byte becomes
// U+FFFD.
func validUTF8(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		sb.WriteRune(r)
		i += size
	}
	return sb.String()
}

// TestOutputOneLinePerFinding reads a text report back line by line: a
// scanner sees exactly one line per finding whatever the strings hold.
func TestOutputOneLinePerFinding(t *testing.T) {
	fs := []validate.Finding{hostile, hostile, hostile}
	sc := bufio.NewScanner(strings.NewReader(render(t, "text", fs, nil)))
	n := 0
	for sc.Scan() {
		if !strings.HasSuffix(sc.Text(), "[json]") {
			t.Errorf("line %d is not a whole finding: %q", n+1, sc.Text())
		}
		n++
	}
	if n != len(fs) {
		t.Errorf("%d lines for %d findings", n, len(fs))
	}
}

// plainTextFinding is FindingText written the plain way, each part escaped
// on its own: what the one-pass writer must give.
func plainTextFinding(f validate.Finding) string {
	var sb strings.Builder
	if f.Line > 0 {
		fmt.Fprintf(&sb, "%s:%d: %s: ", EscapeText(f.File), f.Line, f.Severity)
	} else {
		fmt.Fprintf(&sb, "%s: %s: ", EscapeText(f.File), f.Severity)
	}
	if f.Pointer != "" {
		sb.WriteString(EscapeText(f.Pointer) + ": ")
	}
	sb.WriteString(EscapeText(f.Message))
	fmt.Fprintf(&sb, " [%s]", EscapeText(f.Tag()))
	return sb.String()
}

// newWriter returns a writer of the format named format with no options.
func newWriter(format string, w io.Writer) Writer {
	out, ok := New(format, w, Options{})
	if !ok {
		panic("no format " + format)
	}
	return out
}
