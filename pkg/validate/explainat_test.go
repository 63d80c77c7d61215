package validate

import (
	"errors"
	"regexp"

	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentproto/agentproto/pkg/validate/judge"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/pkg/validate/typed"
	"github.com/agentproto/agentproto/pkg/wire"
)

// TestExplainAtPointsWhereFindingsPoint holds the generated code's list of
// a value's defects (wire.Codec.ExplainAt) to the validator's findings,
// on the protocols' own schemas: every fixture, and the mutations of the
// first lines of each (as TestVerdictsAgree makes them). For each value
// the document validator explains, the places ExplainAt lists, when it
// says the list is whole, must be defects jsonschema/v6 reports, and are
// the places of the findings (less those the check skips) for all but a
// few values, where the two pick different alternatives of a union.
func TestExplainAtPointsWhereFindingsPoint(t *testing.T) {
	skipDifferentialIfShort(t)
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	codecs := typed.Checker{}
	var mu sync.Mutex
	compared, partial, noCodec := 0, 0, 0
	var bad, alien, unhinted []string
	hinted := 0
	foreign := 0
	// Every failure explained from the parsed document, none from the
	// memo.
	e.setJudge(judge.Options{NoMemo: true, Explained: func(f judge.Failure, findings []Finding) {
		if f.Doc == nil {
			return // validated by jsonschema/v6: no parsed value at hand
		}
		c := f.Check.Schema.Codec(codecs.Codec)
		raw := f.Doc.Raw(f.Node)
		mu.Lock()
		defer mu.Unlock()
		if c == nil || !c.Complete {
			noCodec++
			return
		}
		errs, whole := c.ExplainAt(wire.NewDecoder(bytes.Clone(raw)), "")
		if !whole {
			partial++
			return
		}
		compared++
		// Every defect listed is one jsonschema/v6 reports, in one
		// alternative or another of the unions on its way.
		v6 := map[string]bool{}
		var walk func(ve *jsonschema.ValidationError)
		walk = func(ve *jsonschema.ValidationError) {
			if len(ve.Causes) == 0 {
				v6[protocol.Pointer(ve.InstanceLocation)] = true
			}
			for _, c := range ve.Causes {
				walk(c)
			}
		}
		var verr *jsonschema.ValidationError
		if errors.As(f.Check.Schema.Validate(f.Doc.Value(f.Node)), &verr) {
			walk(verr)
		}
		for _, de := range errs {
			if !v6[de.Pointer] {
				foreign++
				if len(alien) < 10 {
					alien = append(alien, fmt.Sprintf("%s: ExplainAt lists %s (%s: %s), which jsonschema/v6 does not report\n  %s", f.Check.Schema.ID, de.Pointer, de.Keyword, de.Msg, raw))
				}
			}
		}
		base := f.Check.Pointer()
		var got, want []string
		for _, de := range errs {
			if f.Check.Skip != nil && f.Check.Skip(protocol.SplitPointer(de.Pointer)) {
				continue
			}
			got = append(got, base+de.Pointer)
		}
		for _, fd := range findings {
			want = append(want, fd.Pointer)
		}
		slices.Sort(got)
		slices.Sort(want)
		got, want = slices.Compact(got), slices.Compact(want)
		if !slices.Equal(got, want) {
			bad = append(bad, fmt.Sprintf("%s at %s: ExplainAt lists %v, the findings point at %v\n  %s", f.Check.Schema.ID, base, got, want, raw))
			return
		}
		// Placed alike, the two give the same hints: the value a
		// misspelt one stands for, the member a missing one does.
		var gotHints, wantHints []string
		for _, de := range errs {
			gotHints = append(gotHints, hintsOf(base+de.Pointer, de.Msg)...)
		}
		for _, fd := range findings {
			wantHints = append(wantHints, hintsOf(fd.Pointer, fd.Message)...)
		}
		slices.Sort(gotHints)
		slices.Sort(wantHints)
		if len(wantHints) > 0 {
			hinted++
		}
		if !slices.Equal(gotHints, wantHints) {
			unhinted = append(unhinted, fmt.Sprintf("%s at %s: ExplainAt hints %q, the findings %q\n  %s", f.Check.Schema.ID, base, gotHints, wantHints, raw))
		}
	}})
	mutants := 0
	for _, p := range traceFiles(t, fixturesDir) {
		buf, n := varied(t, p, 10, mutations)
		mutants += n
		checkFile(t, e, p)
		findingsOf(t, e, p, buf)
	}
	t.Logf("%d mutated messages: %d failing values compared, %d whose list ExplainAt does not vouch for, %d without a complete codec", mutants, compared, partial, noCodec)
	// The two choose differently in some unions that no tag decides:
	// ExplainAt takes the variant an array's first element selects, or
	// the members a union's tag of the wrong type belongs to; the
	// findings, the alternative with the fewest and deepest complaints.
	t.Logf("%d values whose defects ExplainAt and the findings place differently", len(bad))
	if len(bad)*100 > compared {
		for _, b := range bad[:min(len(bad), 20)] {
			t.Log(b)
		}
		t.Errorf("ExplainAt and the findings place the defects of %d values of %d differently: more than 1 in 100", len(bad), compared)
	}
	t.Logf("%d values placed alike whose findings give a hint", hinted)
	for _, b := range unhinted[:min(len(unhinted), 20)] {
		t.Error(b)
	}
	if len(unhinted) > 0 {
		t.Errorf("%d values placed alike get other hints from ExplainAt than from the findings", len(unhinted))
	}
	if hinted < 300 {
		t.Errorf("only %d values with hints compared", hinted)
	}
	for _, b := range alien {
		t.Error(b)
	}
	if foreign > 0 {
		t.Errorf("%d defects ExplainAt lists that jsonschema/v6 does not report", foreign)
	}
	if compared < 10000 {
		t.Errorf("only %d values compared", compared)
	}
}

// didYouMean finds the hints of a message: `did you mean "x"?` and `did
// you mean "x" or "y"?`.
var didYouMean = regexp.MustCompile(`did you mean ("(?:[^"\\]|\\.)*"(?: or "(?:[^"\\]|\\.)*")?)\?`)

// hintsOf lists the hints of a message at pointer, each as "pointer: hint".
func hintsOf(pointer, msg string) []string {
	var out []string
	for _, m := range didYouMean.FindAllStringSubmatch(msg, -1) {
		out = append(out, pointer+": "+m[1])
	}
	return out
}
