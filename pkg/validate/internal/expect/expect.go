// Package expect reads the NAME.expect files of the fixtures: one expected
// finding per line, "LINE RULE POINTER" ("-" for the whole message),
// optionally followed by the requirement the finding names and the side it
// blames ("LINE RULE POINTER REQUIREMENT SIDE"), blank lines and lines
// starting with "#" ignored. The validator's tests and the
// protocol rules' tests compare findings with them through this one reader.
package expect

import (
	"bufio"
	"fmt"
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

// String renders the key as an .expect line.
func (k Key) String() string {
	p := k.Pointer
	if p == "" {
		p = "-"
	}
	out := fmt.Sprintf("%d %s %s", k.Line, k.Rule, p)
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

// Read parses an .expect file.
func Read(path string) ([]Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Key
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 || len(fields) > 5 {
			return nil, fmt.Errorf("%s:%d: want LINE RULE POINTER [REQUIREMENT [SIDE]], got %q", path, n, line)
		}
		ln, err := strconv.Atoi(fields[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		p := fields[2]
		if p == "-" {
			p = ""
		}
		k := Key{Line: ln, Rule: fields[1], Pointer: p}
		if len(fields) > 3 {
			k.Requirement = fields[3]
		}
		if len(fields) > 4 {
			k.Side = fields[4]
		}
		out = append(out, k)
	}
	return out, sc.Err()
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
