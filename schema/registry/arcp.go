package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// ARCPTable is an ARCP version's (or dialect's) dispatch table: its message
// types, job event kinds, the features that gate members, and the known
// SDKs' deviations from it.
type ARCPTable struct {
	Protocol string `json:"protocol"`
	Version  string `json:"version"`
	// VendorEventKind is a regular expression for event kinds outside
	// the reserved ones that receivers ignore (x-vendor.*).
	VendorEventKind string          `json:"vendor_event_kind"`
	Messages        []*ARCPMessage  `json:"messages"`
	Events          []*ARCPEvent    `json:"events"`
	FieldFeatures   []*FieldFeature `json:"field_features"`

	// Deviations are the known SDKs' departures from this version, from
	// deviations.json beside the dispatch table.
	Deviations []*Deviation `json:"-"`

	vendorKind *regexp.Regexp
}

// ARCPMessage is one message type.
type ARCPMessage struct {
	Type   string `json:"type"`
	Schema string `json:"schema"`
	// Feature is the negotiated feature the type needs ("" for none).
	Feature string `json:"feature"`
	// Direction is the sender: "client" or "runtime".
	Direction string `json:"direction"`
	// Since is the protocol version that introduced the type.
	Since string `json:"since"`
	// Sequenced messages carry the session's gap-free event_seq.
	Sequenced bool `json:"sequenced"`
	// Terminal messages end their job.
	Terminal bool `json:"terminal"`
	// Handshake marks the messages that open a session.
	Handshake bool `json:"handshake"`
	// SupersededBy names the type that replaces this one.
	SupersededBy string `json:"superseded_by"`
}

// ARCPEvent is one reserved job event kind.
type ARCPEvent struct {
	Kind    string `json:"kind"`
	Schema  string `json:"schema"`
	Feature string `json:"feature"`
	Since   string `json:"since"`
}

// FieldFeature is a member of a message that needs a negotiated feature
// (when its value matches Matches, if set).
type FieldFeature struct {
	Type    string `json:"type"`
	Pointer string `json:"pointer"`
	Feature string `json:"feature"`
	Matches string `json:"matches"`

	re *regexp.Regexp
}

// Match reports whether a string value at the pointer needs the feature.
func (f *FieldFeature) Match(v string) bool { return f.re == nil || f.re.MatchString(v) }

// HasPattern reports whether the feature applies only to some values.
func (f *FieldFeature) HasPattern() bool { return f.re != nil }

// Deviation is one known SDK's departure from canonical ARCP, reported as a
// warning naming the SDK and the canonical form.
type Deviation struct {
	ID           string          `json:"id"`
	SDK          string          `json:"sdk"`
	MessageTypes []string        `json:"message_types"`
	EventKind    string          `json:"event_kind"`
	Pointer      string          `json:"pointer"`
	Canonical    string          `json:"canonical"`
	Detect       DeviationDetect `json:"detect"`
	Note         string          `json:"note"`
}

// DeviationDetect says how a deviation shows in a message.
type DeviationDetect struct {
	Present StringList     `json:"present"`
	Absent  StringList     `json:"absent"`
	Equals  map[string]any `json:"equals"`
	// State names a state rule whose finding the deviation explains
	// instead (e.g. a terminal message for a job never accepted).
	State string `json:"state"`
	// Answers, with State, is the message type the deviating message
	// answers: the deviation applies only while one is outstanding.
	Answers string `json:"answers"`
}

// SDKs returns the dialect names of the SDKs that make the deviation
// ("Go SDK, Java SDK" → go-sdk, java-sdk).
func (d *Deviation) SDKs() []string {
	var out []string
	for _, s := range strings.Split(d.SDK, ",") {
		if n := Slug(s); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Slug turns an SDK's name into its dialect name: "Go SDK" → "go-sdk",
// "C# SDK" → "csharp-sdk".
func Slug(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.ReplaceAll(s, "#", "sharp")
	return strings.Join(strings.Fields(s), "-")
}

// StringList decodes a string or an array of strings.
type StringList []string

// UnmarshalJSON accepts "a" or ["a", "b"].
func (l *StringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or an array of strings: %w", err)
	}
	*l = many
	return nil
}

// DialectCanonical is the name of canonical ARCP among the SDK dialects.
const DialectCanonical = "canonical"

// Dialects returns the SDK dialect names read with this table: canonical
// and every SDK a deviation names, in table order.
func (t *ARCPTable) Dialects() []string {
	if len(t.Deviations) == 0 {
		return nil
	}
	out := []string{DialectCanonical}
	seen := map[string]bool{DialectCanonical: true}
	for _, d := range t.Deviations {
		for _, s := range d.SDKs() {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// Message returns the entry of a message type, or nil.
func (t *ARCPTable) Message(typ string) *ARCPMessage {
	for _, m := range t.Messages {
		if m.Type == typ {
			return m
		}
	}
	return nil
}

// Event returns the entry of a reserved event kind, or nil.
func (t *ARCPTable) Event(kind string) *ARCPEvent {
	for _, e := range t.Events {
		if e.Kind == kind {
			return e
		}
	}
	return nil
}

// VendorKind reports whether kind is a vendor event kind.
func (t *ARCPTable) VendorKind(kind string) bool {
	return t.vendorKind != nil && t.vendorKind.MatchString(kind)
}

func loadARCP(fsys fs.FS, v *Version, b []byte) (*ARCPTable, error) {
	t := &ARCPTable{}
	if err := strictUnmarshal(b, t); err != nil {
		return nil, fmt.Errorf("dispatch.json: %w", err)
	}
	var err error
	if t.VendorEventKind != "" {
		if t.vendorKind, err = regexp.Compile(t.VendorEventKind); err != nil {
			return nil, fmt.Errorf("dispatch.json: vendor_event_kind: %w", err)
		}
	}
	for i, m := range t.Messages {
		if m.Type == "" || m.Schema == "" {
			return nil, fmt.Errorf("dispatch.json: messages[%d] needs type and schema", i)
		}
		if err := checkFile(fsys, v, "message "+m.Type, m.Schema); err != nil {
			return nil, fmt.Errorf("dispatch.json: %w", err)
		}
	}
	for i, e := range t.Events {
		if e.Kind == "" || e.Schema == "" {
			return nil, fmt.Errorf("dispatch.json: events[%d] needs kind and schema", i)
		}
		if err := checkFile(fsys, v, "event "+e.Kind, e.Schema); err != nil {
			return nil, fmt.Errorf("dispatch.json: %w", err)
		}
	}
	for _, ff := range t.FieldFeatures {
		if ff.Matches != "" {
			if ff.re, err = regexp.Compile(ff.Matches); err != nil {
				return nil, fmt.Errorf("dispatch.json: field feature %s: %w", ff.Feature, err)
			}
		}
	}
	db, err := fs.ReadFile(fsys, path.Join(v.Folder, "deviations.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Deviations []*Deviation `json:"deviations"`
	}
	if err := strictUnmarshal(db, &doc); err != nil {
		return nil, fmt.Errorf("deviations.json: %w", err)
	}
	for i, d := range doc.Deviations {
		if d.ID == "" || len(d.SDKs()) == 0 || len(d.MessageTypes) == 0 {
			return nil, fmt.Errorf("deviations.json: deviations[%d] needs id, sdk and message_types", i)
		}
	}
	t.Deviations = doc.Deviations
	return t, nil
}
