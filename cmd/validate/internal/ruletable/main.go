// Command ruletable writes the rule table of cmd/validate/README.md (the
// table under "## Rules") from the rules' own descriptions
// (validate.RuleTable), so that the README and the rules cannot disagree.
// go generate runs it in cmd/validate:
//
//	ruletable -readme README.md
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
)

func main() {
	readme := flag.String("readme", "", "the README whose rule table to write")
	flag.Parse()
	if *readme == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: ruletable -readme README.md")
		os.Exit(2)
	}
	if err := rewrite(*readme); err != nil {
		fmt.Fprintf(os.Stderr, "ruletable: %s: %v\n", *readme, err)
		os.Exit(1)
	}
}

// rewrite replaces the table that follows the "## Rules" heading of the
// file at path.
func rewrite(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := replaceTable(b, report.MarkdownTable(validate.RuleTable(nil)))
	if err != nil {
		return err
	}
	if bytes.Equal(out, b) {
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}

// replaceTable returns b with the first table after its "## Rules" heading
// (its lines that start with "|") replaced by table.
func replaceTable(b []byte, table string) ([]byte, error) {
	head := bytes.Index(b, []byte("\n## Rules\n"))
	if head < 0 {
		return nil, errors.New(`no "## Rules" heading`)
	}
	start := head + bytes.Index(b[head:], []byte("\n|")) + 1
	if start <= head {
		return nil, errors.New(`no table after "## Rules"`)
	}
	end := start
	for end < len(b) && b[end] == '|' {
		nl := bytes.IndexByte(b[end:], '\n')
		if nl < 0 {
			end = len(b)
			break
		}
		end += nl + 1
	}
	out := append([]byte(nil), b[:start]...)
	out = append(out, table...)
	return append(out, b[end:]...), nil
}
