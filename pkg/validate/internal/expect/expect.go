// Package expect reads the NAME.expect files of the fixtures: one expected
// finding per line, "LINE RULE POINTER" ("-" for the whole message), blank
// lines and lines starting with "#" ignored. The validator's tests and the
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
}

// String renders the key as an .expect line.
func (k Key) String() string {
	p := k.Pointer
	if p == "" {
		p = "-"
	}
	return fmt.Sprintf("%d %s %s", k.Line, k.Rule, p)
}

// Of is the key of a finding.
func Of(f finding.Finding) Key { return Key{f.Line, f.Rule, f.Pointer} }

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
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want LINE RULE POINTER, got %q", path, n, line)
		}
		ln, err := strconv.Atoi(fields[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		p := fields[2]
		if p == "-" {
			p = ""
		}
		out = append(out, Key{ln, fields[1], p})
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
