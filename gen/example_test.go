package gen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/gen"
)

// Generate a package from one schema file and list the types it declares.
func ExampleGenerate() {
	dir, err := os.MkdirTemp("", "protogen-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	schemaFile := filepath.Join(dir, "events.json")
	err = os.WriteFile(schemaFile, []byte(`{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "$id": "https://example.com/events.json",
	  "title": "Event",
	  "description": "Something that happened.",
	  "oneOf": [
	    {"title": "Started", "type": "object", "properties": {"type": {"const": "started"}, "at": {"type": "string", "format": "date-time"}}, "required": ["type", "at"]},
	    {"title": "Stopped", "type": "object", "properties": {"type": {"const": "stopped"}, "code": {"type": "integer", "minimum": 0, "maximum": 255}}, "required": ["type"]}
	  ]
	}`), 0o644)
	if err != nil {
		fmt.Println(err)
		return
	}
	src, err := gen.Generate(gen.Config{Inputs: []string{schemaFile}, Package: "events"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "type ") || strings.HasPrefix(line, "func Decode") {
			fmt.Println(strings.TrimSuffix(line, " {"))
		}
	}
	// Output:
	// type Event interface
	// type UnknownEvent struct
	// type Started struct
	// type Stopped struct
	// func DecodeEvent(d *wire.Decoder) (Event, error)
}
