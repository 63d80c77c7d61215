// Package expect reads the NAME.expect files of the fixtures, the findings
// a trace must produce. It is the one reader of the format: the
// validator's tests, the protocol rules' tests, the schema and fixture
// tests and the bundle tests all read .expect files through it.
//
// An .expect file has one expected finding per line:
//
//	LINE RULE POINTER [REQUIREMENT [SIDE]]
//
// LINE is the trace's line (from 1), RULE the finding's rule, POINTER the
// JSON pointer of the finding ("-" for the whole message); the optional
// REQUIREMENT and SIDE pin down the requirement the finding names and the
// side it blames. Blank lines and lines starting with "#" are ignored.
// The fields are separated by spaces or tabs.
package expect

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
)

// Key is what an .expect line pins down of a finding.
type Key struct {
	Line    int
	Rule    string
	Pointer string // "" for the whole message
	// Requirement and Side, when the .expect line names them.
	Requirement string
	Side        string
}

// PointerText is the pointer as an .expect line writes it: "-" for the
// whole message.
func (k Key) PointerText() string {
	if k.Pointer == "" {
		return "-"
	}
	return k.Pointer
}

// String renders the key as an .expect line.
func (k Key) String() string {
	out := fmt.Sprintf("%d %s %s", k.Line, k.Rule, k.PointerText())
	if k.Requirement != "" {
		out += " " + k.Requirement
		if k.Side != "" {
			out += " " + k.Side
		}
	}
	return out
}

// Of is the key of a finding, without its requirement and side.
func Of(f finding.Finding) Key { return Key{Line: f.Line, Rule: f.Rule, Pointer: f.Pointer} }

// OfLike is the key of a finding with its requirement and side where a key
// of want at the same line, rule and pointer names them: an .expect file
// pins them down line by line.
func OfLike(f finding.Finding, want []Key) Key {
	k := Of(f)
	for _, w := range want {
		if w.Line == k.Line && w.Rule == k.Rule && w.Pointer == k.Pointer && w.Requirement != "" {
			k.Requirement = f.Requirement
			if w.Side != "" {
				k.Side = f.Side
			}
			break
		}
	}
	return k
}

// Read parses the .expect file at path.
func Read(path string) ([]Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse parses .expect text from r; name is what its errors call it
// ("name:row: …", row counting from 1).
func Parse(r io.Reader, name string) ([]Key, error) {
	var out []Key
	sc := bufio.NewScanner(r)
	row := 0
	for sc.Scan() {
		row++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, row, err)
		}
		out = append(out, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, row+1, err)
	}
	return out, nil
}

// parseLine parses one line that is neither blank nor a comment.
func parseLine(line string) (Key, error) {
	fields := strings.Fields(line)
	if len(fields) < 3 || len(fields) > 5 {
		return Key{}, fmt.Errorf("want LINE RULE POINTER [REQUIREMENT [SIDE]], got %s", strconv.Quote(cut(line)))
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil || n < 1 {
		return Key{}, fmt.Errorf("the line %s is not a line number (1, 2, …)", strconv.Quote(cut(fields[0])))
	}
	p := fields[2]
	switch {
	case p == "-":
		p = ""
	case !strings.HasPrefix(p, "/"):
		return Key{}, fmt.Errorf("the pointer %s is neither - nor a JSON pointer (/…)", strconv.Quote(cut(p)))
	}
	k := Key{Line: n, Rule: fields[1], Pointer: p}
	if len(fields) > 3 {
		k.Requirement = fields[3]
	}
	if len(fields) > 4 {
		k.Side = fields[4]
	}
	return k, nil
}

// cut shortens what an error repeats of a line to a readable length.
func cut(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// Strings renders keys as sorted .expect lines, each once: the form to
// compare a fixture's expectations with what a run found.
func Strings(keys []Key) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range keys {
		if s := k.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Findings renders findings as sorted .expect lines, each once.
func Findings(fs []finding.Finding) []string {
	keys := make([]Key, len(fs))
	for i, f := range fs {
		keys[i] = Of(f)
	}
	return Strings(keys)
}
