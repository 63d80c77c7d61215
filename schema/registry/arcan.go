package registry

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/pkg/jsonpointer"
)

// ArcanTable is an Arcan version's dispatch table: the AgentEvent variants
// by part_type and the session-store record that wraps them.
type ArcanTable struct {
	Protocol    string        `json:"protocol"`
	Version     string        `json:"version"`
	Events      []*ArcanEvent `json:"events"`
	StoreRecord string        `json:"store_record"`
	// Store is what a store record's members mean to the state.
	Store ArcanStore `json:"store"`
	// RunReasons maps a model turn's stop_reason to the reason of the
	// run that ends on that turn without an error.
	RunReasons map[string]string `json:"run_reasons"`
	// ErrorReasons are the reasons a run that reported an error may
	// finish with.
	ErrorReasons []string `json:"error_reasons"`

	// StoreShape is the emit shape of a store record's own members (its
	// event has the shape of its variant); nil when it has none.
	StoreShape *EmitShape `json:"-"`
}

// ArcanEvent is one AgentEvent variant.
type ArcanEvent struct {
	PartType string `json:"part_type"`
	Schema   string `json:"schema"`
	// Effects are what the event does to its run's state.
	Effects ArcanEffects `json:"effects"`

	// Shape is what Arcan always writes in this event, read from the
	// schemas' annotations; nil when it writes nothing its reader does not
	// require.
	Shape *EmitShape `json:"-"`
}

// ArcanEffects are what one AgentEvent variant does to the state of its
// run, as the reference orchestrator emits it. Pointers are JSON pointers
// into the event.
type ArcanEffects struct {
	// StartsRun, ErrorsRun and FinishesRun mark the run's lifecycle
	// events.
	StartsRun   bool `json:"starts_run"`
	ErrorsRun   bool `json:"errors_run"`
	FinishesRun bool `json:"finishes_run"`
	// MaxIterations points to the run's iteration budget.
	MaxIterations string `json:"max_iterations"`
	// Iteration points to the iteration the event belongs to.
	Iteration string `json:"iteration"`
	// StartsIteration: the event opens the iteration Iteration names.
	StartsIteration bool `json:"starts_iteration"`
	// Turn is the event's place in its iteration: ArcanBeforeModel
	// (before the model turn's model_output), ArcanModelOutput (the
	// model_output itself) or ArcanAfterModel (what the turn's
	// directives and their tools produce); "" for none.
	Turn string `json:"turn"`
	// Directive: the event is the one event of one directive, counted
	// against the turn's DirectiveCount.
	Directive bool `json:"directive"`
	// DirectiveCount and StopReason point to the model turn's count of
	// directives and its stop reason.
	DirectiveCount string `json:"directive_count"`
	StopReason     string `json:"stop_reason"`
	// Text points to the text the event streams.
	Text string `json:"text"`
	// RequestsCall points to the id of a tool call the event requests;
	// EndsCall to the id of a call the event gives its one outcome.
	RequestsCall string `json:"requests_call"`
	EndsCall     string `json:"ends_call"`
	// Revision points to the state revision after a patch; Patch to the
	// StatePatch object.
	Revision string `json:"revision"`
	Patch    string `json:"patch"`
	// RequestsApproval and ResolvesApproval point to an approval id.
	RequestsApproval string `json:"requests_approval"`
	ResolvesApproval string `json:"resolves_approval"`
	// NotWritten are members the producer never writes in an object of
	// the event, though its reader ignores them, each set with the
	// catalogue row that says so.
	NotWritten []ArcanMembers `json:"not_written"`
	// UsageIfTokens points to token usage the producer writes only when
	// the run used tokens (input plus output above zero).
	UsageIfTokens string `json:"usage_if_tokens"`
	// Reason, TotalIterations and FinalAnswer point to how a run ended.
	Reason          string `json:"reason"`
	TotalIterations string `json:"total_iterations"`
	FinalAnswer     string `json:"final_answer"`
}

// ArcanMembers are members of the object at At, for the catalogue row
// Row.
type ArcanMembers struct {
	At      string   `json:"at"`
	Members []string `json:"members"`
	Row     string   `json:"row"`
}

// Places of an event in its iteration (ArcanEffects.Turn).
const (
	ArcanBeforeModel = "before_model_output"
	ArcanModelOutput = "model_output"
	ArcanAfterModel  = "after_model_output"
)

// ArcanStore is what a session-store record's members mean: Sequence
// points to the record's number within its session's branch, Session and
// Branch to the names it counts within.
type ArcanStore struct {
	Sequence string `json:"sequence"`
	Session  string `json:"session"`
	Branch   string `json:"branch"`
}

// KnownReason reports whether reason is a run stop reason the table
// names (in RunReasons or ErrorReasons).
func (t *ArcanTable) KnownReason(reason string) bool {
	if slices.Contains(t.ErrorReasons, reason) {
		return true
	}
	for _, r := range t.RunReasons {
		if r == reason {
			return true
		}
	}
	return false
}

// Event returns the variant tagged partType, or nil.
func (t *ArcanTable) Event(partType string) *ArcanEvent {
	for _, e := range t.Events {
		if e.PartType == partType {
			return e
		}
	}
	return nil
}

func loadArcan(fsys fs.FS, v *Version, b []byte, check bool) (*ArcanTable, error) {
	t := &ArcanTable{}
	if err := StrictUnmarshal(b, t); err != nil {
		return nil, fmt.Errorf("dispatch.json: %w", err)
	}
	shapes := newShapeReader(fsys, v.Folder)
	for i, e := range t.Events {
		if e.PartType == "" || e.Schema == "" {
			return nil, fmt.Errorf("dispatch.json: events[%d] needs part_type and schema", i)
		}
		switch e.Effects.Turn {
		case "", ArcanBeforeModel, ArcanModelOutput, ArcanAfterModel:
		default:
			return nil, fmt.Errorf("dispatch.json: events[%d] (%s): turn %q is none of %s, %s, %s", i, e.PartType, e.Effects.Turn, ArcanBeforeModel, ArcanModelOutput, ArcanAfterModel)
		}
		if err := CheckFile(check, fsys, v, "event "+e.PartType, e.Schema); err != nil {
			return nil, fmt.Errorf("dispatch.json: %w", err)
		}
		var err error
		if e.Shape, err = shapes.read(e.Schema); err != nil {
			return nil, fmt.Errorf("event %s: %w", e.PartType, err)
		}
	}
	if err := CheckFile(check, fsys, v, "store_record", t.StoreRecord); err != nil {
		return nil, fmt.Errorf("dispatch.json: %w", err)
	}
	if t.StoreRecord != "" {
		var err error
		if t.StoreShape, err = shapes.read(t.StoreRecord); err != nil {
			return nil, fmt.Errorf("store_record: %w", err)
		}
	}
	return t, nil
}

// Annotations of the emit shape: what a serde producer writes beyond what
// its reader requires. The schemas describe what the reader accepts;
// these lists, on an object schema, say what the producer always does.
const (
	// AlwaysEmitted lists members the producer writes in every object,
	// though its reader fills them in when absent (a serde default or an
	// Option).
	AlwaysEmitted = "x-always-emitted"
	// OmittedWhenNone lists members the producer leaves out when unset and
	// never writes as null, though its reader takes null as unset.
	OmittedWhenNone = "x-omitted-when-none"
)

// EmitShape is what a producer writes in one JSON object beyond what its
// reader requires: a consumer written against the producer's output may
// rely on it, so a message that differs is worth a warning.
type EmitShape struct {
	// Always are the members written in every object.
	Always []EmitMember
	// Omitted are the members left out rather than written as null.
	Omitted []string
	// Free are the members whose value is free-form JSON (a
	// serde_json::Value): the producer writes their object keys sorted,
	// at every depth.
	Free []string
	// Members are the shapes of member values that are objects (or,
	// through Items, arrays of objects), by member name, in name order.
	Members []EmitChild
	// Items is the shape of each element, when the object's value is an
	// array (set only below Members).
	Items *EmitShape
}

// EmitMember is a member the producer always writes.
type EmitMember struct {
	Name string
	// Nullable is set when the member may be null (the producer writes
	// null when there is nothing to say).
	Nullable bool
	// Value is set when the member is a free-form JSON value (its schema
	// takes any value), not an optional of one type.
	Value bool
}

// EmitChild is the emit shape of one member's value.
type EmitChild struct {
	Name  string
	Shape *EmitShape
}

// maxRefDepth bounds the $ref chains followed from one schema.
const maxRefDepth = 32

// shapeReader reads emit shapes from the schema files of one folder.
type shapeReader struct {
	fsys   fs.FS
	folder string
	docs   map[string]any        // file (below the folder) -> document
	done   map[string]*EmitShape // file#pointer -> shape (nil: none)
	active map[string]bool       // being read: a $ref cycle
}

func newShapeReader(fsys fs.FS, folder string) *shapeReader {
	return &shapeReader{fsys: fsys, folder: folder, docs: map[string]any{}, done: map[string]*EmitShape{}, active: map[string]bool{}}
}

func (r *shapeReader) read(file string) (*EmitShape, error) {
	doc, err := r.doc(file)
	if err != nil {
		return nil, err
	}
	return r.shape(file, "", doc, 0)
}

func (r *shapeReader) doc(file string) (any, error) {
	if d, ok := r.docs[file]; ok {
		return d, nil
	}
	b, err := fs.ReadFile(r.fsys, path.Join(r.folder, file))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	var d any
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	r.docs[file] = d
	return d, nil
}

// shape reads the emit shape of the schema node at file#ptr: the object it
// describes, through $refs and through a union with exactly one
// alternative that is not null. Any other union has no shape.
func (r *shapeReader) shape(file, ptr string, node any, depth int) (*EmitShape, error) {
	if depth > maxRefDepth {
		return nil, fmt.Errorf("%s#%s: $refs nested deeper than %d", file, ptr, maxRefDepth)
	}
	key := file + "#" + ptr
	if s, ok := r.done[key]; ok {
		return s, nil
	}
	if r.active[key] {
		return nil, nil // a recursive type: its shape is being read above
	}
	r.active[key] = true
	defer delete(r.active, key)
	s, err := r.read1(file, ptr, node, depth)
	if err != nil {
		return nil, err
	}
	r.done[key] = s
	return s, nil
}

func (r *shapeReader) read1(file, ptr string, node any, depth int) (*EmitShape, error) {
	m, ok := node.(map[string]any)
	if !ok {
		return nil, nil
	}
	if ref, ok := m["$ref"].(string); ok {
		tfile, tptr, target, err := r.resolve(file, ref)
		if err != nil {
			return nil, fmt.Errorf("%s#%s: %w", file, ptr, err)
		}
		return r.shape(tfile, tptr, target, depth+1)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := m[k].([]any)
		if !ok {
			continue
		}
		var only any
		var at string
		n := 0
		for i, a := range alts {
			if isNullSchema(a) {
				continue
			}
			only, at = a, fmt.Sprintf("%s/%s/%d", ptr, k, i)
			n++
		}
		if n != 1 {
			return nil, nil
		}
		return r.shape(file, at, only, depth+1)
	}
	if items, ok := m["items"]; ok {
		s, err := r.shape(file, ptr+"/items", items, depth+1)
		if err != nil || s == nil {
			return nil, err
		}
		return &EmitShape{Items: s}, nil
	}
	props, _ := m["properties"].(map[string]any)
	s := &EmitShape{}
	always, err := names(m, AlwaysEmitted, props)
	if err != nil {
		return nil, fmt.Errorf("%s#%s: %w", file, ptr, err)
	}
	for _, n := range always {
		s.Always = append(s.Always, EmitMember{Name: n, Nullable: mayBeNull(props[n]), Value: anyValue(props[n])})
	}
	if s.Omitted, err = names(m, OmittedWhenNone, props); err != nil {
		return nil, fmt.Errorf("%s#%s: %w", file, ptr, err)
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if anyValue(props[k]) {
			s.Free = append(s.Free, k)
		}
	}
	for _, k := range keys {
		c, err := r.shape(file, jsonpointer.Join(ptr+"/properties", k), props[k], depth+1)
		if err != nil {
			return nil, err
		}
		if c != nil {
			s.Members = append(s.Members, EmitChild{Name: k, Shape: c})
		}
	}
	if len(s.Always) == 0 && len(s.Omitted) == 0 && len(s.Members) == 0 && len(s.Free) == 0 {
		return nil, nil
	}
	return s, nil
}

// resolve finds the target of a $ref relative to file: a file of the same
// folder, a JSON pointer into it, or both.
func (r *shapeReader) resolve(file, ref string) (string, string, any, error) {
	tfile, frag, _ := strings.Cut(ref, "#")
	if tfile == "" {
		tfile = file
	} else {
		tfile = path.Join(path.Dir(file), tfile)
	}
	doc, err := r.doc(tfile)
	if err != nil {
		return "", "", nil, fmt.Errorf("$ref %s: %w", ref, err)
	}
	node := doc
	if frag != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			tok = jsonpointer.Unescape(tok)
			m, ok := node.(map[string]any)
			if !ok {
				return "", "", nil, fmt.Errorf("$ref %s names nothing", ref)
			}
			if node, ok = m[tok]; !ok {
				return "", "", nil, fmt.Errorf("$ref %s names nothing", ref)
			}
		}
	}
	return tfile, frag, node, nil
}

// names reads an annotation's list of member names; each must be a
// property of the object.
func names(m map[string]any, keyword string, props map[string]any) ([]string, error) {
	raw, ok := m[keyword]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a list of member names", keyword)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		n, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s must be a list of member names", keyword)
		}
		if _, ok := props[n]; !ok {
			return nil, fmt.Errorf("%s names %q, which is not a property of the object", keyword, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// isNullSchema reports whether a schema takes null only.
func isNullSchema(s any) bool {
	m, ok := s.(map[string]any)
	return ok && m["type"] == "null"
}

// mayBeNull reports whether a member's schema takes null: no type at all,
// a type list with null, or a union with a null alternative.
func mayBeNull(s any) bool {
	m, ok := s.(map[string]any)
	if !ok {
		return false
	}
	switch t := m["type"].(type) {
	case string:
		return t == "null"
	case []any:
		for _, e := range t {
			if e == "null" {
				return true
			}
		}
		return false
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok {
			for _, a := range alts {
				if isNullSchema(a) {
					return true
				}
			}
			return false
		}
	}
	_, ref := m["$ref"]
	_, cnst := m["const"]
	_, enum := m["enum"]
	return !ref && !cnst && !enum
}

// anyValue reports whether a member's schema takes any JSON value: it
// names no type, union, reference, constant or enumeration.
func anyValue(s any) bool {
	m, ok := s.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"type", "anyOf", "oneOf", "$ref", "const", "enum"} {
		if _, ok := m[k]; ok {
			return false
		}
	}
	return true
}

// Arcan returns the version's table if it is a version of Arcan, else nil.
func (v *Version) Arcan() *ArcanTable {
	t, _ := v.Table.(*ArcanTable)
	return t
}
