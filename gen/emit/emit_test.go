package emit_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/gen"
	"github.com/agentproto/agentproto/gen/emit"
)

// TestSerdeIntegers generates the kitchen-sink schemas (integers of every
// width: fields, map values, named types, union variants) with and without
// serde integers. The two outputs differ exactly in the integer readers:
// each d.Uint32() and kin becomes d.Uint32Serde(), and nothing else changes.
func TestSerdeIntegers(t *testing.T) {
	in := []string{filepath.Join("..", "testdata", "kitchen")}
	plain, err := gen.Generate(gen.Config{Inputs: in, Package: "kitchen"})
	if err != nil {
		t.Fatal(err)
	}
	serde, err := gen.Generate(gen.Config{Inputs: in, Package: "kitchen", SerdeIntegers: true})
	if err != nil {
		t.Fatal(err)
	}
	reader := regexp.MustCompile(`d\.(Int8|Int16|Int32|Int64|Uint8|Uint16|Uint32|Uint64)\(\)`)
	serdeReader := regexp.MustCompile(`d\.(Int8|Int16|Int32|Int64|Uint8|Uint16|Uint32|Uint64)Serde\(\)`)
	n := len(reader.FindAll(plain, -1))
	if n < 5 {
		t.Fatalf("the kitchen schemas read only %d integers; the test needs more", n)
	}
	if got := len(serdeReader.FindAll(plain, -1)); got != 0 {
		t.Errorf("without serde integers, %d serde readers are used", got)
	}
	if got := len(reader.FindAll(serde, -1)); got != 0 {
		t.Errorf("with serde integers, %d lenient readers are left", got)
	}
	if got := len(serdeReader.FindAll(serde, -1)); got != n {
		t.Errorf("with serde integers, %d serde readers, want %d (one per lenient reader)", got, n)
	}
	if want := reader.ReplaceAllString(string(plain), "d.${1}Serde()"); want != string(serde) {
		t.Error("serde integers change more than the integer readers")
	}
}

// TestFormatErrorIsShort: a failure to format generated source reports
// the first error and the lines around it, never the whole source.
func TestFormatErrorIsShort(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("package p\n\n")
	for i := 0; i < 5000; i++ {
		sb.WriteString("var v")
		sb.WriteString(strings.Repeat("x", 10))
		sb.WriteString(" = 1\n")
	}
	sb.WriteString("func broken( {\n}\n")
	for i := 0; i < 5000; i++ {
		sb.WriteString("var w = 2 // filler line\n")
	}
	msg := emit.SourceError([]byte(sb.String()))
	if len(msg) > 2000 {
		t.Errorf("the error is %d bytes long:\n%.500s", len(msg), msg)
	}
	for _, want := range []string{"5003:", "> ", "func broken( {"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not show %q:\n%s", want, msg)
		}
	}
	if strings.Count(msg, "\n") > 8 {
		t.Errorf("the error shows more than a few lines:\n%s", msg)
	}
}
