package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"

	"github.com/agentproto/agentproto/schema"
)

// Requirement is one row of a version's requirement catalogue: one MUST,
// MUST NOT, SHOULD or SHOULD NOT of the version's specification, in our
// own words, with where the specification says it and how a recorded
// trace can show it broken. The rules cite rows by ID; a row that no rule
// cites stays in the catalogue as unchecked.
type Requirement struct {
	// ID is the row's stable name ("acp.prompt.cancelled-stop-reason").
	// A requirement that two versions share has one ID in both.
	ID string `json:"id"`
	// Level is "MUST", "MUST NOT", "SHOULD" or "SHOULD NOT", or
	// LevelDescribed.
	Level string `json:"level"`
	// Side is the peer the requirement binds: "agent", "client" or
	// "either" (ARCP: "runtime" for the agent runtime; Arcan: "consumer"
	// for a reader of the stream).
	Side string `json:"side"`
	// Gate is the capability or feature that makes the requirement apply,
	// "client:<pointer into the initialize params>",
	// "agent:<pointer into the initialize result>" or "feature:<name>";
	// "" when it always applies.
	Gate string `json:"gate,omitempty"`
	// Doc and Section cite the specification: a file of the reference
	// material ("docs-v1/prompt-turn.mdx") and the heading above the
	// sentence.
	Doc     string `json:"doc"`
	Section string `json:"section"`
	// Summary states the requirement precisely enough to judge a trace.
	Summary string `json:"summary"`
	// Observe says how a trace can show the requirement broken:
	// ObservePassive, ObserveProbe or ObserveNone.
	Observe string `json:"observe"`
	// Example is a short trace whose last message breaks the
	// requirement (rows that are observable have one).
	Example []ExampleMessage `json:"example,omitempty"`

	// Version is the name of the version whose catalogue lists the row.
	Version string `json:"-"`
}

// ExampleMessage is one message of a Requirement's example: the side that
// sends it and the message.
type ExampleMessage struct {
	From    string          `json:"from"`
	Message json.RawMessage `json:"message"`
}

// How a trace can show a requirement broken.
const (
	// ObservePassive: any trace that reaches the situation shows it.
	ObservePassive = "passive"
	// ObserveProbe: a trace shows it only when a peer provokes it on
	// purpose (a version the agent lacks, an invalid cursor).
	ObserveProbe = "probe"
	// ObserveNone: the wire does not show it (what a user sees, what a
	// process does outside the connection).
	ObserveNone = "none"
)

// LevelDescribed is the level of a row whose source describes what the
// reference implementation does rather than stating a keyword (Arcan's
// notes on its orchestrator): a trace that differs is not what the
// reference writes, and its finding is a warning.
const LevelDescribed = "described"

// Levels of a requirement.
var levels = []string{"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", LevelDescribed}

// Strong reports whether the requirement is a MUST or a MUST NOT, whose
// breach is an error; a SHOULD, SHOULD NOT or described row is a warning.
func (q *Requirement) Strong() bool { return q.Level == "MUST" || q.Level == "MUST NOT" }

// Citation is the row's doc and section as one string
// ("docs-v1/prompt-turn.mdx § Cancellation").
func (q *Requirement) Citation() string {
	if q.Section == "" {
		return q.Doc
	}
	return q.Doc + " § " + q.Section
}

// catalogue is the file: the version's rows.
type catalogue struct {
	Protocol     string         `json:"protocol"`
	Version      string         `json:"version"`
	Source       string         `json:"source"`
	Requirements []*Requirement `json:"requirements"`
}

var requirementID = regexp.MustCompile(`^[a-z][a-z0-9]*(\.[a-z0-9][a-z0-9-]*)+$`)

// loadRequirements reads the version's catalogue, if its folder has one.
func loadRequirements(fsys fs.FS, v *Version) error {
	b, err := fs.ReadFile(fsys, path.Join(v.Folder, schema.RequirementsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var c catalogue
	if err := StrictUnmarshal(b, &c); err != nil {
		return fmt.Errorf("%s: %w", schema.RequirementsFile, err)
	}
	if c.Protocol != v.Protocol || c.Version != v.Name {
		return fmt.Errorf("%s says protocol %q version %q; %s expects protocol %s, version %s", schema.RequirementsFile, c.Protocol, c.Version, schema.VersionsFile, v.Protocol, v.Name)
	}
	seen := map[string]bool{}
	for i, q := range c.Requirements {
		where := fmt.Sprintf("%s: requirements[%d]", schema.RequirementsFile, i)
		switch {
		case !requirementID.MatchString(q.ID):
			return fmt.Errorf("%s: id %q is not of the form protocol.area.name (lower case, digits and hyphens)", where, q.ID)
		case seen[q.ID]:
			return fmt.Errorf("%s: id %s is listed twice", where, q.ID)
		case !slices.Contains(levels, q.Level):
			return fmt.Errorf("%s (%s): level %q is none of MUST, MUST NOT, SHOULD, SHOULD NOT, described", where, q.ID, q.Level)
		case !slices.Contains([]string{"agent", "client", "either", "runtime", "consumer"}, q.Side):
			return fmt.Errorf("%s (%s): side %q is none of agent, client, either, runtime, consumer", where, q.ID, q.Side)
		case !slices.Contains([]string{ObservePassive, ObserveProbe, ObserveNone}, q.Observe):
			return fmt.Errorf("%s (%s): observe %q is none of passive, probe, none", where, q.ID, q.Observe)
		case q.Doc == "" || q.Summary == "":
			return fmt.Errorf("%s (%s): doc and summary are required", where, q.ID)
		}
		seen[q.ID] = true
		q.Version = v.Name
	}
	v.Requirements = c.Requirements
	return nil
}

// loadCatalogues reads every version's catalogue, once.
func (r *Registry) loadCatalogues() error {
	r.reqOnce.Do(func() {
		for _, v := range r.versions {
			if err := loadRequirements(r.reqFS, v); err != nil {
				r.reqErr = fmt.Errorf("registry: %s: %w", v.Folder, err)
				return
			}
		}
	})
	return r.reqErr
}

// CatalogueErr reports a catalogue that could not be read (Requirements
// and AllRequirements then leave its rows out).
func (r *Registry) CatalogueErr() error { return r.loadCatalogues() }

// Requirements returns the catalogue that applies to a trace read as v:
// the rows of the version it extends, if any, then its own, and then
// those of each extension given (the unstable additions a trace may use).
// A row an extension restates replaces the base's.
func (r *Registry) Requirements(v *Version, ext ...*Version) []*Requirement {
	_ = r.loadCatalogues()
	var chain []*Version
	if v.Extends != "" {
		if base := r.Lookup(v.Protocol, v.Extends); base != nil {
			chain = append(chain, base)
		}
	}
	chain = append(chain, v)
	chain = append(chain, ext...)
	var out []*Requirement
	at := map[string]int{}
	for _, w := range chain {
		for _, q := range w.Requirements {
			if i, ok := at[q.ID]; ok {
				out[i] = q
				continue
			}
			at[q.ID] = len(out)
			out = append(out, q)
		}
	}
	return out
}

// RequirementIDs is the ids of Requirements(v, ext...), each once, from a
// table generated from the catalogues: it decodes nothing, so that every
// run can count the rows a trace exercised.
func (r *Registry) RequirementIDs(v *Version, ext ...*Version) []string {
	var chain []*Version
	if v.Extends != "" {
		if base := r.Lookup(v.Protocol, v.Extends); base != nil {
			chain = append(chain, base)
		}
	}
	chain = append(append(chain, v), ext...)
	var out []string
	seen := map[string]bool{}
	for _, w := range chain {
		for _, id := range catalogueIDs(w.String()) {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// FindRequirement returns the row id of a protocol's catalogue: from the
// version (or dialect) named if it lists the row, else from the first
// version that does; nil when none has it.
func (r *Registry) FindRequirement(protocol, version, id string) *Requirement {
	if id == "" {
		return nil
	}
	var found *Requirement
	for _, q := range r.AllRequirements(protocol) {
		if q.ID != id {
			continue
		}
		if q.Version == version {
			return q
		}
		if found == nil {
			found = q
		}
	}
	return found
}

// AllRequirements returns every row of every version of a protocol ("" for
// all protocols), in registry order; a row two versions share appears once
// per version.
func (r *Registry) AllRequirements(protocol string) []*Requirement {
	_ = r.loadCatalogues()
	var out []*Requirement
	for _, v := range r.versions {
		if protocol == "" || v.Protocol == protocol {
			out = append(out, v.Requirements...)
		}
	}
	return out
}
