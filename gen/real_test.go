package gen_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/gen"
)

// TestRealSchemas: schemas as published in npm packages (testdata/real,
// each with its license) generate with no flags, keep no union as raw
// JSON, and their samples, valid by jsonschema/v6, decode, validate and
// re-encode to the same JSON value through the generated code.
func TestRealSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles generated packages; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to compile the output with")
	}
	for _, c := range []struct{ dir, root string }{
		{"markdownlint", "MarkdownlintConfigurationSchema"},
	} {
		var warnings []string
		src, err := gen.Generate(gen.Config{Inputs: []string{filepath.Join("testdata/real", c.dir, "schema.json")}, Package: "p", Warn: func(err error) {
			warnings = append(warnings, err.Error())
		}})
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		for _, w := range warnings {
			if strings.Contains(w, "raw JSON with an accessor") {
				t.Errorf("%s: %s", c.dir, w)
			}
		}
		samples, err := os.ReadFile(filepath.Join("testdata/real", c.dir, "samples.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sch, err := jsonschema.NewCompiler().Compile(filepath.Join("testdata/real", c.dir, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(samples)), "\n") {
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("%s: a sample v6 rejects: %s: %v", c.dir, line, err)
			}
		}
		dir, err := os.MkdirTemp("testdata", "real-out-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.WriteFile(filepath.Join(dir, "p.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		test := fmt.Sprintf(realTest, c.root, "`"+strings.TrimSpace(string(samples))+"`")
		if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(test), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(goBin, "test", "./"+filepath.ToSlash(dir)).CombinedOutput()
		if err != nil {
			t.Errorf("%s: the samples through the generated code: %v\n%s", c.dir, err, out)
		}
	}
}

// realTest decodes each sample line as the root type (%[1]s), validates it
// and re-encodes it; the value must not change.
const realTest = `package p

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/wire"
)

func value(t *testing.T, b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSamples(t *testing.T) {
	for _, line := range strings.Split(%[2]s, "\n") {
		var v %[1]s
		if err := wire.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("decode %%s: %%v", line, err)
			continue
		}
		if err := v.Validate(); err != nil {
			t.Errorf("Validate %%s: %%v", line, err)
		}
		out, err := wire.Marshal(&v)
		if err != nil || !reflect.DeepEqual(value(t, out), value(t, []byte(line))) {
			t.Errorf("%%s re-encoded as %%s, %%v", line, out, err)
		}
	}
}
`
