package schema_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// This file checks the deviation table and the dialect fixtures. Which
// findings each fixture produces is checked once, by the validator's golden
// tests (pkg/validate), against the .expect files.

// deviation is one entry of schema/arcp/v1.1/deviations.json.
type deviation struct {
	ID           string   `json:"id"`
	SDK          string   `json:"sdk"`
	MessageTypes []string `json:"message_types"`
	EventKind    string   `json:"event_kind"`
	Pointer      string   `json:"pointer"`
	Canonical    string   `json:"canonical"`
	Detect       struct {
		Present json.RawMessage `json:"present"`
		Absent  string          `json:"absent"`
		Equals  map[string]any  `json:"equals"`
		State   string          `json:"state"`
		Answers string          `json:"answers"`
	} `json:"detect"`
	Note string `json:"note"`
}

func loadDeviations(t *testing.T) []deviation {
	t.Helper()
	var doc struct {
		Deviations []deviation `json:"deviations"`
	}
	if err := json.Unmarshal(readEmbedded(t, "arcp/v1.1/deviations.json"), &doc); err != nil {
		t.Fatalf("arcp/v1.1/deviations.json: %v", err)
	}
	if len(doc.Deviations) == 0 {
		t.Fatal("arcp/v1.1/deviations.json lists no deviation")
	}
	return doc.Deviations
}

// presentList decodes detect.present, a pointer or a list of pointers.
func (d *deviation) presentList() ([]string, error) {
	if len(d.Detect.Present) == 0 {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(d.Detect.Present, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(d.Detect.Present, &many); err != nil {
		return nil, fmt.Errorf("detect.present of %s is neither a pointer nor a list: %w", d.ID, err)
	}
	return many, nil
}

// TestARCPDialectFixtures checks that every line of the dialect traces is valid
// against the canonical schemas: a documented deviation is a warning, never a
// schema error.
func TestARCPDialectFixtures(t *testing.T) {
	cache := newSchemaCache(t)
	d := loadDispatch(t, "v1.1")
	ids := map[string]bool{}
	for _, file := range fixtureFiles(t, "v1.1", "dialect") {
		lines := readTrace(t, file)
		for _, l := range lines {
			if err := validateLine(cache, "v1.1", d, l.raw); err != nil {
				t.Errorf("%s:%d: a dialect line must be schema-valid: %v", file, l.no, err)
			}
		}
		for _, e := range readExpect(t, strings.TrimSuffix(file, ".jsonl")+".expect", len(lines)) {
			id, ok := strings.CutPrefix(e.rule, "deviation:")
			if !ok {
				t.Errorf("%s:%d: dialect traces expect only deviations, got %s", file, e.line, e.rule)
			}
			ids[id] = true
		}
	}
	for _, dev := range loadDeviations(t) {
		if !ids[dev.ID] {
			t.Errorf("no dialect fixture shows deviation %s", dev.ID)
		}
	}
}

// TestARCPDeviationsTable checks the machine-readable deviation table against
// the dispatch table and the human-readable table of schema/arcp/README.md.
func TestARCPDeviationsTable(t *testing.T) {
	d := loadDispatch(t, "v1.1")
	readme := string(readEmbedded(t, "arcp/README.md"))
	seen := map[string]bool{}
	for _, dev := range loadDeviations(t) {
		if dev.ID == "" || seen[dev.ID] {
			t.Errorf("deviation id %q is empty or repeated", dev.ID)
		}
		seen[dev.ID] = true
		if dev.SDK == "" || dev.Pointer == "" || dev.Canonical == "" || dev.Note == "" {
			t.Errorf("%s: sdk, pointer, canonical and note are all required", dev.ID)
		}
		if len(dev.MessageTypes) == 0 {
			t.Errorf("%s: no message_types", dev.ID)
		}
		for _, typ := range dev.MessageTypes {
			if _, ok := d.messageSchema(typ); !ok {
				t.Errorf("%s: message type %s is not dispatched", dev.ID, typ)
			}
		}
		if dev.EventKind != "" {
			if _, ok := d.eventSchema(dev.EventKind); !ok {
				t.Errorf("%s: event kind %s is not dispatched", dev.ID, dev.EventKind)
			}
		}
		if dev.Detect.State != "" && !isStateRule(dev.Detect.State) {
			t.Errorf("%s: detect.state %q is not a state rule", dev.ID, dev.Detect.State)
		}
		if _, err := (&dev).presentList(); err != nil {
			t.Error(err)
		}
		if !strings.Contains(readme, "`"+dev.ID+"`") {
			t.Errorf("schema/arcp/README.md does not document deviation %s", dev.ID)
		}
		if !strings.HasPrefix(dev.Pointer, "/") {
			t.Errorf("%s: pointer %q is not a JSON pointer", dev.ID, dev.Pointer)
		}
	}
}
