package publish

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/agentproto/agentproto/schema"
)

func generateFresh(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := Generate(schema.Files)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		out[f.Root+"/"+f.Path] = f.Data
	}
	return out
}

var generateOnce sync.Once
var generatedFiles map[string][]byte

// generate runs Generate once for the tests that only read its output.
func generate(t *testing.T) map[string][]byte {
	t.Helper()
	generateOnce.Do(func() { generatedFiles = generateFresh(t) })
	if generatedFiles == nil {
		t.Fatal("Generate failed")
	}
	return generatedFiles
}

// anchors lists the anchors GitHub gives the headings of a page.
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	inCode := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				return unicode.ToLower(r)
			}
			return -1
		}, text)
		if n := count[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		count[slug]++
	}
	return out
}

var linkRE = regexp.MustCompile(`\]\(#([^)]+)\)`)

func TestDocsLinksResolve(t *testing.T) {
	out := generate(t)
	for _, b := range bundles(t) {
		name := "docs/" + b.PageFile()
		page := string(out[name])
		if page == "" {
			t.Fatalf("%s not generated", name)
		}
		have := anchors(page)
		links := linkRE.FindAllStringSubmatch(page, -1)
		if len(links) < 10 {
			t.Errorf("%s: only %d internal links", name, len(links))
		}
		for _, l := range links {
			if !have[l[1]] {
				t.Errorf("%s: link to #%s, which no heading has", name, l[1])
			}
		}
		if !strings.HasPrefix(page, "<!-- Generated") || !strings.HasSuffix(page, "\n") || strings.HasSuffix(page, "\n\n\n") {
			t.Errorf("%s: missing the generated note or a clean final newline", name)
		}
	}
}

func TestDocsCoverEveryMessageAndType(t *testing.T) {
	out := generate(t)
	for dir, b := range bundles(t) {
		page := string(out["docs/"+b.PageFile()])
		if page == "" {
			t.Fatalf("%s: no page docs/%s", dir, b.PageFile())
		}
		suffix := " (" + b.Name + ")\n"
		for _, m := range b.Messages {
			h := "#### `" + m.Tag + "`" + suffix
			if m.Kind == "record" && b.Protocol == "arcan" {
				h = "#### Store record" + suffix
			}
			if !strings.Contains(page, h) {
				t.Errorf("%s: no heading %q", dir, strings.TrimSpace(h))
			}
		}
		for _, e := range b.Events {
			if h := "#### `" + e.Tag + "` event" + suffix; !strings.Contains(page, h) {
				t.Errorf("%s: no heading %q", dir, strings.TrimSpace(h))
			}
		}
		for _, name := range b.Defs().Keys() {
			if !strings.Contains(page, "Definition `#/$defs/"+name+"`") {
				t.Errorf("%s: definition %s is not documented", dir, name)
			}
		}
	}
}

func TestDocsContent(t *testing.T) {
	out := generate(t)
	for _, tc := range []struct{ page, want string }{
		// session/prompt params: a required member with a link to its type.
		{"docs/acp-v1.md", "| `sessionId` | [SessionId](#sessionid-v1) | yes |"},
		{"docs/acp-v1.md", "| [`session/prompt`](#sessionprompt-v1) | request | agent | `#/$defs/SessionPromptParams` | `#/$defs/SessionPromptResult` |"},
		// A closed enum with a description per value.
		{"docs/acp-v1.md", "| `\"end_turn\"` |"},
		// The log level of ARCP, with every value.
		{"docs/arcp-v1.1.md", "| `level` | string | yes | `\"trace\"`, `\"debug\"`, `\"info\"`, `\"warn\"`, `\"error\"`, `\"critical\"`, `\"DEBUG\"`, `\"INFO\"`, `\"WARN\"`, `\"ERROR\"` |"},
		// A nullable member and an integer range.
		{"docs/arcan-v1.md", "| `final_answer` | string \\| null |  |"},
		{"docs/arcan-v1.md", "| `max_iterations` | integer | yes | 0 to 4294967295 |"},
		// An example from the schema.
		{"docs/arcan-v1.md", "```json\n{\n  \"part_type\": \"run_started\","},
		{"docs/README.md", "| ARCP | [arcp-rfc0001.md](arcp-rfc0001.md) | `rfc0001` | [`arcp-rfc0001.bundle.json`](../schema/arcp/rfc0001/arcp-rfc0001.bundle.json) | `type` |"},
	} {
		if !bytes.Contains(out[tc.page], []byte(tc.want)) {
			t.Errorf("%s does not contain %q", tc.page, tc.want)
		}
	}
}

func TestMarkdownEscaping(t *testing.T) {
	for in, want := range map[string]string{
		"a <session_id>.jsonl\nfile":   "a &lt;session_id&gt;.jsonl file",
		"keep `a<b>` as code, <b> not": "keep `a<b>` as code, &lt;b&gt; not",
		"plain":                        "plain",
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := cell("a | b\nc"); got != `a \| b c` {
		t.Errorf("cell: %q", got)
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := generate(t), generateFresh(t)
	if len(a) != len(b) {
		t.Fatal("different file sets")
	}
	for p, data := range a {
		if !bytes.Equal(data, b[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
}
