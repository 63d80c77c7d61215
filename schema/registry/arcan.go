package registry

import (
	"fmt"
	"io/fs"
)

// ArcanTable is an Arcan version's dispatch table: the AgentEvent variants
// by part_type and the session-store record that wraps them.
type ArcanTable struct {
	Protocol    string        `json:"protocol"`
	Version     string        `json:"version"`
	Events      []*ArcanEvent `json:"events"`
	StoreRecord string        `json:"store_record"`
}

// ArcanEvent is one AgentEvent variant.
type ArcanEvent struct {
	PartType string `json:"part_type"`
	Schema   string `json:"schema"`
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

func loadArcan(fsys fs.FS, v *Version, b []byte) (*ArcanTable, error) {
	t := &ArcanTable{}
	if err := strictUnmarshal(b, t); err != nil {
		return nil, fmt.Errorf("dispatch.json: %w", err)
	}
	for i, e := range t.Events {
		if e.PartType == "" || e.Schema == "" {
			return nil, fmt.Errorf("dispatch.json: events[%d] needs part_type and schema", i)
		}
		if err := checkFile(fsys, v, "event "+e.PartType, e.Schema); err != nil {
			return nil, fmt.Errorf("dispatch.json: %w", err)
		}
	}
	if err := checkFile(fsys, v, "store_record", t.StoreRecord); err != nil {
		return nil, fmt.Errorf("dispatch.json: %w", err)
	}
	return t, nil
}
