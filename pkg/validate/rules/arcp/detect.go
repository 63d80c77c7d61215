package arcp

import (
	"sort"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// evidence is what detection saw of one SDK: its score and, in the order
// first seen, the labels of the traits that pointed at it.
type evidence struct {
	score  float64
	first  int // order of the SDK's first evidence, for ties
	labels []labelled
}

type labelled struct {
	label  string
	weight float64
}

// detectSDK scores every deviation and format signal the messages show and
// names the most specific SDK, with the evidence for the summary note
// ("go-sdk: UUIDv7 ids, `bare` agent entries"). Each deviation or signal
// counts once however often it shows; it gives each SDK it names 1/n of a
// point (n SDKs share it), and the SDK it names first a little more, so a
// trait only one SDK has outweighs one several share. No evidence:
// canonical, with no note.
func detectSDK(t *registry.ARCPTable, msgs []*protocol.Message) (string, string) {
	seen := map[string]bool{}
	by := map[string]*evidence{}
	order := 0
	credit := func(id, label string, sdks []string) {
		if seen[id] || len(sdks) == 0 {
			return
		}
		seen[id] = true
		if label == "" {
			label = id
		}
		w := 1 / float64(len(sdks))
		for i, s := range sdks {
			e := by[s]
			if e == nil {
				e = &evidence{first: order}
				order++
				by[s] = e
			}
			bonus := 0.0
			if i == 0 && len(sdks) > 1 {
				bonus = 0.01 // the SDK a shared trait is most typical of
			}
			e.score += w + bonus
			e.labels = append(e.labels, labelled{label, w})
		}
	}
	for _, m := range msgs {
		if m.Obj() == nil {
			continue
		}
		typ, _ := m.Obj()["type"].(string)
		for _, d := range t.Deviations {
			if d.Detect.State != "" || seen[d.ID] || !matches(d, typ, m) {
				continue
			}
			credit(d.ID, d.Label, d.SDKs())
		}
		for _, s := range t.Signals {
			if seen[s.ID] || !signalShows(s, typ, m.Obj()) {
				continue
			}
			credit(s.ID, s.Label, s.SDKs())
		}
	}
	if len(by) == 0 {
		return registry.DialectCanonical, ""
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := by[names[i]], by[names[j]]
		if a.score != b.score {
			return a.score > b.score
		}
		return a.first < b.first
	})
	best := by[names[0]]
	sort.SliceStable(best.labels, func(i, j int) bool { return best.labels[i].weight > best.labels[j].weight })
	const maxLabels = 5
	var out []string
	for i, l := range best.labels {
		if i == maxLabels {
			out = append(out, "…")
			break
		}
		out = append(out, l.label)
	}
	return names[0], names[0] + ": " + strings.Join(out, ", ")
}

// signalShows reports whether message o of type typ shows the signal.
func signalShows(s *registry.Signal, typ string, o map[string]any) bool {
	if len(s.Types) > 0 {
		ok := false
		for _, t := range s.Types {
			ok = ok || t == typ
		}
		if !ok {
			return false
		}
	}
	for _, p := range s.Pointer {
		for _, f := range protocol.Resolve(o, protocol.SplitPointer(p)) {
			if s.Match(f.Value) {
				return true
			}
		}
	}
	return false
}
