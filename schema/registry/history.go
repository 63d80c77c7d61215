package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/agentproto/agentproto/schema"
)

// History is what earlier releases of a protocol version defined and the
// version no longer does: members, methods and string values, each with
// the releases that defined it. It is a version folder's history.json
// (ACP's are generated from the official schema's release history by
// internal/historygen). A value sent by a peer built against such a
// release is retired, not a peer's invention: a validator names it so.
type History struct {
	members map[string][]HistoryMember // by place and member name
	methods map[string]*HistoryMethod
	values  map[string]*HistoryValue // by place, member and value
}

// Span is when an item was part of the protocol.
type Span struct {
	// First and Last are the first and last release that defined it,
	// FirstDate and LastDate their dates (YYYY-MM-DD).
	First     string `json:"first"`
	FirstDate string `json:"firstDate"`
	Last      string `json:"last"`
	LastDate  string `json:"lastDate"`
	// Unstable is set when only the unstable schema defined it.
	Unstable bool `json:"unstable"`
	// Successor says what took its place, where the protocol says so.
	Successor string `json:"successor"`
}

// Releases says, in a phrase, which releases defined the item: "releases
// v0.4.1 to v0.13.4 (2025-09-22 to 2026-05-27)", naming the unstable
// schema where only it did.
func (s Span) Releases() string {
	what := "releases"
	if s.Unstable {
		what = "the unstable schema of releases"
	}
	if s.First == s.Last {
		return fmt.Sprintf("%s %s (%s)", strings.TrimSuffix(what, "s"), s.First, s.FirstDate)
	}
	return fmt.Sprintf("%s %s to %s (%s to %s)", what, s.First, s.Last, s.FirstDate, s.LastDate)
}

// HistoryMember is a member a type had.
type HistoryMember struct {
	// Type is the place of the version's schemas that holds the type,
	// relative to its folder ("session.new.result.json",
	// "common.json#/$defs/AuthMethod").
	Type   string `json:"type"`
	Member string `json:"member"`
	// When, if set, is the tag member and value ([2]) that selected the
	// union variant that had the member: the variant itself is retired.
	When []string `json:"when"`
	Span
}

// HistoryMethod is a method the version had.
type HistoryMethod struct {
	Method string `json:"method"`
	// Side is the side that handled it: "agent" or "client".
	Side string `json:"side"`
	Span
}

// HistoryValue is a string value (an enum's or a const's) a member had.
type HistoryValue struct {
	Type   string `json:"type"`
	Member string `json:"member"` // "" when the type itself is the string
	Value  string `json:"value"`
	Span
}

// Member returns what the history knows of member key of an object whose
// types are types (the $ids of the named types it was judged against, as
// the validator's Miss.Types has them); obj, if set, is the object, whose
// tag selects a retired variant's members. ok is false when no earlier
// release defined the member there.
func (h *History) Member(types []string, key string, obj map[string]any) (HistoryMember, bool) {
	if h == nil {
		return HistoryMember{}, false
	}
	for _, t := range types {
		for _, m := range h.members[placeOf(t)+"\x00"+key] {
			if len(m.When) == 2 {
				if s, _ := obj[m.When[0]].(string); s != m.When[1] {
					continue
				}
			}
			return m, true
		}
	}
	return HistoryMember{}, false
}

// Method returns what the history knows of a method the version no
// longer has.
func (h *History) Method(name string) (HistoryMethod, bool) {
	if h == nil || h.methods[name] == nil {
		return HistoryMethod{}, false
	}
	return *h.methods[name], true
}

// Value returns what the history knows of value v of member (or "" for the
// type itself) at one of types.
func (h *History) Value(types []string, member, v string) (HistoryValue, bool) {
	if h == nil {
		return HistoryValue{}, false
	}
	for _, t := range types {
		if hv := h.values[placeOf(t)+"\x00"+member+"\x00"+v]; hv != nil {
			return *hv, true
		}
	}
	return HistoryValue{}, false
}

// placeOf is the part of a $id below its version folder: the history keys
// a type the same way in a version and its extension (v1 and
// v1-unstable).
func placeOf(id string) string {
	file, frag, _ := strings.Cut(id, "#")
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	if frag != "" {
		return file + "#" + frag
	}
	return file
}

// historyCache holds each folder's History once read.
type historyCache struct {
	mu sync.Mutex
	m  map[string]*historyEntry
}

type historyEntry struct {
	h   *History
	err error
}

// History returns the history of v: its folder's history.json, or for an
// extension its base version's (nil when there is none). It is read when
// first asked for.
func (r *Registry) History(v *Version) (*History, error) {
	if v == nil {
		return nil, nil
	}
	v = r.Base(v)
	r.hist.mu.Lock()
	defer r.hist.mu.Unlock()
	if e := r.hist.m[v.Folder]; e != nil {
		return e.h, e.err
	}
	h, err := readHistory(r.fsys, v.Folder)
	if r.hist.m == nil {
		r.hist.m = map[string]*historyEntry{}
	}
	r.hist.m[v.Folder] = &historyEntry{h, err}
	return h, err
}

// Base returns the version v extends (v1 for v1-unstable), or v itself:
// the releases of a history, and the title that names them, are the
// base's.
func (r *Registry) Base(v *Version) *Version {
	if v != nil && v.Extends != "" {
		if base := r.Lookup(v.Protocol, v.Extends); base != nil {
			return base
		}
	}
	return v
}

// readHistory reads folder's history.json; a folder without one has none.
func readHistory(fsys fs.FS, folder string) (*History, error) {
	b, err := fs.ReadFile(fsys, path.Join(folder, schema.HistoryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Comment string          `json:"$comment"`
		Members []HistoryMember `json:"members"`
		Methods []HistoryMethod `json:"methods"`
		Values  []HistoryValue  `json:"values"`
	}
	if err := StrictUnmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("registry: %s/%s: %w", folder, schema.HistoryFile, err)
	}
	h := &History{members: map[string][]HistoryMember{}, methods: map[string]*HistoryMethod{}, values: map[string]*HistoryValue{}}
	for _, m := range doc.Members {
		if len(m.When) != 0 && len(m.When) != 2 {
			return nil, fmt.Errorf("registry: %s/%s: member %s of %s: when needs a tag and a value", folder, schema.HistoryFile, m.Member, m.Type)
		}
		k := m.Type + "\x00" + m.Member
		// A retired variant's member, which asks for its tag, goes
		// before the type's own: it is the more precise.
		h.members[k] = append(h.members[k], m)
		slices.SortStableFunc(h.members[k], func(a, b HistoryMember) int { return len(b.When) - len(a.When) })
	}
	for i := range doc.Methods {
		h.methods[doc.Methods[i].Method] = &doc.Methods[i]
	}
	for i := range doc.Values {
		v := &doc.Values[i]
		h.values[v.Type+"\x00"+v.Member+"\x00"+v.Value] = v
	}
	return h, nil
}
