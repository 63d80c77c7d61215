// Command publish writes the published forms of agentproto's schemas: one
// self-contained bundle per protocol version (<protocol>/<version>/*.bundle.json
// in the schema folder) and the Markdown reference pages (docs/<protocol>.md
// and docs/README.md). With -check it writes nothing and exits 1, listing the
// stale files, when any of them differs from what it would write.
//
// Usage, from the repository root:
//
//	go run ./internal/publish/cmd/publish -schema schema -docs docs [-check]
//
// or from schema/generate.go:
//
//	//go:generate go run ../internal/publish/cmd/publish -schema . -docs ../docs
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/agentproto/agentproto/internal/publish"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("publish", flag.ContinueOnError)
	fl.SetOutput(stderr)
	schemaDir := fl.String("schema", "schema", "the schema folder (read; bundles are written into it)")
	docsDir := fl.String("docs", "docs", "the folder of the reference pages")
	check := fl.Bool("check", false, "write nothing; exit 1 and list the stale files if any generated file is out of date")
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: publish [-schema DIR] [-docs DIR] [-check]\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return 2
	}
	files, err := publish.Generate(os.DirFS(*schemaDir))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	dirs := publish.Dirs{publish.RootSchema: *schemaDir, publish.RootDocs: *docsDir}
	if *check {
		stale, err := publish.Stale(files, dirs)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		if len(stale) > 0 {
			fmt.Fprintln(stderr, "publish: stale generated files (run go generate ./schema, or go run ./internal/publish/cmd/publish):")
			for _, p := range stale {
				fmt.Fprintf(stderr, "  %s\n", p)
			}
			return 1
		}
		return 0
	}
	changed, err := publish.Write(files, dirs)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	for _, p := range changed {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	return 0
}
