// A member that the version a value is checked against does not define,
// but another version of the protocol (or its unstable schema) does at the
// same type: named as such, rather than as a near miss of a member the
// version has.

package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// Elsewhere looks a member up in the other versions of its protocol. It
// reads and compiles another version's types only when asked about a
// member, so a run without undefined members pays nothing for it. It is
// safe for concurrent use.
type Elsewhere struct {
	reg     *registry.Registry
	schemas *protocol.Schemas
}

// NewElsewhere returns a lookup over the versions of reg, compiling their
// types with schemas.
func NewElsewhere(reg *registry.Registry, schemas *protocol.Schemas) *Elsewhere {
	return &Elsewhere{reg: reg, schemas: schemas}
}

// Defined is what Elsewhere found for one member.
type Defined struct {
	Key string
	In  *registry.Version   // the version of the type the value was checked against
	By  []*registry.Version // the other versions that define the member there
}

// Found reports whether another version defines the member.
func (d Defined) Found() bool { return d.In != nil && len(d.By) > 0 }

// OnlyExtensions reports whether every version that defines the member
// extends the one the value was checked against (the member is one of
// the version's unstable additions).
func (d Defined) OnlyExtensions() bool {
	if !d.Found() {
		return false
	}
	for _, v := range d.By {
		if v.Extends != d.In.Name {
			return false
		}
	}
	return true
}

// Lookup returns the versions of proto, other than the one of types, that
// define member key at one of types (the $ids of the named types an object
// was judged against, protocol.Miss.Types): the same file's root or the
// same $defs entry in the other version's folder. Versions are in registry
// order, an extension left out when its base is named (the ACP v2 draft,
// not also unstable ACP v2); dialects, which are a peer's variant rather
// than a version, are left out.
func (e *Elsewhere) Lookup(proto string, types []string, key string) Defined {
	d := Defined{Key: key}
	if e == nil || len(types) == 0 {
		return d
	}
	versions := e.reg.Versions(proto)
	for _, t := range types {
		in := versionOf(versions, t)
		if in == nil {
			continue
		}
		if d.In == nil {
			d.In = in
		}
		rel := strings.TrimPrefix(t, in.IDPrefix())
		for _, v := range versions {
			if v == in || v == d.In || v.Dialect || slices.Contains(d.By, v) {
				continue
			}
			if e.schemas.Defines(v.IDPrefix()+rel, key) {
				d.By = append(d.By, v)
			}
		}
	}
	// Registry order, whichever type found each; an extension whose base
	// defines the member too goes without saying.
	var ordered []*registry.Version
	for _, v := range versions {
		if slices.Contains(d.By, v) && !slices.ContainsFunc(d.By, func(b *registry.Version) bool { return b.Name == v.Extends }) {
			ordered = append(ordered, v)
		}
	}
	d.By = ordered
	return d
}

// versionOf returns the version whose folder holds the schema with $id id.
func versionOf(versions []*registry.Version, id string) *registry.Version {
	for _, v := range versions {
		if strings.HasPrefix(id, v.IDPrefix()) {
			return v
		}
	}
	return nil
}

// Hint completes "member X is not defined by this type" for a member other
// versions define: which version the type is of and which define the
// member, what a receiver does with it, and the fix.
func (d Defined) Hint() string {
	titles := make([]string, len(d.By))
	for i, v := range d.By {
		titles[i] = v.Title
	}
	return fmt.Sprintf(" in %s but by %s: a receiver that speaks %s ignores it, so its value is lost; %s",
		d.In.Title, listAnd(titles), d.In.Title, d.fix())
}

// fix says how to use the member: declare the version that defines it
// where the wire names versions (ACP's initialize protocolVersion), else
// speak it with a peer that does; or drop the member.
func (d Defined) fix() string {
	v := d.By[0]
	if v.WireVersion != 0 && v.WireVersion != d.In.WireVersion {
		return fmt.Sprintf("declare %s (protocolVersion %d in initialize) or drop the member", v.Title, v.WireVersion)
	}
	return fmt.Sprintf("send it only to a peer that speaks %s (--dialect %s reads the trace as that version) or drop the member", v.Title, v.Name)
}

// listAnd joins "a", "b", "c" as "a, b and c".
func listAnd(list []string) string {
	if len(list) <= 1 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}
