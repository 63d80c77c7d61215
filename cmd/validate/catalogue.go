package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/report"
	"github.com/agentproto/agentproto/schema/registry"
)

// The requirement catalogue on the command line: --list-rules prints its
// rows, --explain one row with its example, and --coverage what each
// trace showed of them.

// catalogueRow is a row as --list-rules --format json prints it.
type catalogueRow struct {
	Protocol  string   `json:"protocol"`
	Version   string   `json:"version"`
	ID        string   `json:"id"`
	Level     string   `json:"level"`
	Side      string   `json:"side"`
	Gate      string   `json:"gate,omitempty"`
	Citation  string   `json:"citation"`
	Observe   string   `json:"observe"`
	CheckedBy []string `json:"checked_by"`
	Summary   string   `json:"summary"`
}

// checkers returns the rules of proto that check row id in traces of
// version.
func checkers(proto, version, id string) []string {
	out := []string{}
	for _, d := range validate.RuleDocs(proto) {
		if d.Checks(id, version) && !slices.Contains(out, d.Name) {
			out = append(out, d.Name)
		}
	}
	return out
}

// catalogueRows returns the rows of proto ("" for every protocol) and
// version ("" for every version), in registry order.
func catalogueRows(proto, version string) ([]catalogueRow, error) {
	reg, err := registry.Embedded()
	if err != nil {
		return nil, err
	}
	if err := reg.CatalogueErr(); err != nil {
		return nil, err
	}
	var out []catalogueRow
	for _, p := range registry.Protocols() {
		if proto != "" && p != proto {
			continue
		}
		for _, q := range reg.AllRequirements(p) {
			if version != "" && q.Version != version {
				continue
			}
			rules := checkers(p, q.Version, q.ID)
			out = append(out, catalogueRow{Protocol: p, Version: q.Version, ID: q.ID, Level: q.Level, Side: q.Side, Gate: q.Gate,
				Citation: q.Citation(), Observe: q.Observe, CheckedBy: rules, Summary: q.Summary})
		}
	}
	return out, nil
}

// listRules prints the catalogue: a table, or one JSON object per row.
func listRules(w io.Writer, proto, version, format string) error {
	rows, err := catalogueRows(proto, version)
	if err != nil {
		return err
	}
	if version != "" && len(rows) == 0 {
		return fmt.Errorf("no requirement catalogue for version %q (validate --help lists the versions)", version)
	}
	if format == "json" {
		return jsonLines(w, rows)
	}
	type count struct{ rows, passive, checked int }
	counts := map[string]*count{}
	var order []string
	last := ""
	for _, r := range rows {
		k := r.Protocol + " " + r.Version
		if k != last {
			if last != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s %s\n  %-48s %-10s %-7s %-7s %s\n", r.Protocol, r.Version, "requirement", "level", "side", "observe", "citation")
			last = k
			counts[k] = &count{}
			order = append(order, k)
		}
		c := counts[k]
		c.rows++
		if r.Observe == registry.ObservePassive {
			c.passive++
		}
		checked := "not checked"
		if len(r.CheckedBy) > 0 {
			checked = "checked by " + strings.Join(r.CheckedBy, ", ")
			c.checked++
		}
		gate := ""
		if r.Gate != "" {
			gate = "; if " + r.Gate
		}
		fmt.Fprintf(w, "  %-48s %-10s %-7s %-7s %s%s\n      %s; %s\n", escapeText(r.ID), r.Level, r.Side, r.Observe, escapeText(r.Citation), escapeText(gate), checked, "validate --explain "+escapeText(r.ID))
	}
	fmt.Fprintln(w, "\nrows, observable on any trace (passive), checked:")
	for _, k := range order {
		c := counts[k]
		fmt.Fprintf(w, "  %-20s %4d rows, %4d passive, %4d checked\n", k, c.rows, c.passive, c.checked)
	}
	return nil
}

// ruleRow is a rule as --list-rules --rules --format json prints it.
type ruleRow struct {
	Rule     string `json:"rule"`
	Protocol string `json:"protocol,omitempty"`
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
}

// ruleRows lists the rules a finding may carry, each once, as the rule
// table orders them: those of every protocol (Protocol ""), then each
// protocol's (only proto's, if set), with the first sentence of its
// description.
func ruleRows(pl plugins, proto string) []ruleRow {
	own := map[string]string{}
	ps := pl.protocols
	if ps == nil {
		ps = validate.Protocols()
	}
	for _, p := range ps {
		if p.Docs == nil {
			continue
		}
		for _, d := range p.Docs() {
			if _, ok := own[d.Name]; !ok && d.Text != "" {
				own[d.Name] = p.Name
			}
		}
	}
	var out []ruleRow
	for _, d := range pl.catalogue().Rules() {
		p := own[d.Name]
		if proto != "" && p != "" && p != proto {
			continue
		}
		out = append(out, ruleRow{Rule: d.Name, Protocol: p, Severity: d.Severity, Summary: strings.TrimSpace(report.FirstSentence(strings.ReplaceAll(d.Text, "`", "")))})
	}
	return out
}

// listRuleNames prints --list-rules --rules: the rules under a heading per
// protocol, each with its severity and one line of what it catches.
func listRuleNames(w io.Writer, rows []ruleRow, format string) error {
	if format == "json" {
		return jsonLines(w, rows)
	}
	last := "-"
	for _, r := range rows {
		if r.Protocol != last {
			if last != "-" {
				fmt.Fprintln(w)
			}
			heading := "rules of every protocol"
			if r.Protocol != "" {
				heading = r.Protocol + " rules"
			}
			fmt.Fprintf(w, "%s (validate --explain RULE tells more):\n", heading)
			last = r.Protocol
		}
		if _, err := fmt.Fprintf(w, "  %-26s %-15s %s\n", escapeText(r.Rule), r.Severity, escapeText(r.Summary)); err != nil {
			return err
		}
	}
	return nil
}

// jsonLines writes each of rows as one line of JSON.
func jsonLines[T any](w io.Writer, rows []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// explainRow prints every version's row named id, with its example.
func explainRow(w io.Writer, id string) error {
	reg, err := registry.Embedded()
	if err != nil {
		return err
	}
	if err := reg.CatalogueErr(); err != nil {
		return err
	}
	var ids []string
	found := false
	for _, p := range registry.Protocols() {
		for _, q := range reg.AllRequirements(p) {
			ids = append(ids, q.ID)
			if q.ID != id {
				continue
			}
			found = true
			fmt.Fprintf(w, "%s (%s %s)\n", q.ID, p, q.Version)
			if q.Side == "either" {
				fmt.Fprintf(w, "  %s, binds either side", q.Level)
			} else {
				fmt.Fprintf(w, "  %s, binds the %s", q.Level, q.Side)
			}
			if q.Gate != "" {
				fmt.Fprintf(w, ", when %s", q.Gate)
			}
			fmt.Fprintf(w, "\n  %s\n  cited from %s\n", q.Summary, q.Citation())
			if by := checkers(p, q.Version, q.ID); len(by) > 0 {
				fmt.Fprintf(w, "  checked by the rule %s; %s\n", strings.Join(by, ", "), observeWords(q.Observe))
			} else {
				fmt.Fprintf(w, "  not checked; %s\n", observeWords(q.Observe))
			}
			if len(q.Example) > 0 {
				fmt.Fprintln(w, "  example (the last message breaks it):")
				for _, ex := range q.Example {
					fmt.Fprintf(w, "    %-6s %s\n", ex.From, escapeText(compactJSON(ex.Message)))
				}
			}
			fmt.Fprintln(w)
		}
	}
	if !found {
		sort.Strings(ids)
		msg := fmt.Sprintf("no requirement %q", id)
		if near := nearest(id, ids); near != "" {
			msg += fmt.Sprintf(": did you mean %q?", near)
		}
		return fmt.Errorf("%s (validate --list-rules lists them)", msg)
	}
	return nil
}

func observeWords(o string) string {
	switch o {
	case registry.ObservePassive:
		return "observable on any trace that reaches it"
	case registry.ObserveProbe:
		return "observable only when a peer provokes it"
	}
	return "not observable on the wire"
}

// compactJSON is raw on one line, its members in their order.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// nearest returns the id of ids that shares the longest prefix with id, if
// it shares at least its protocol and area.
func nearest(id string, ids []string) string {
	best, bestLen := "", 0
	for _, c := range ids {
		n := 0
		for n < len(c) && n < len(id) && c[n] == id[n] {
			n++
		}
		if n > bestLen {
			best, bestLen = c, n
		}
	}
	if strings.Count(id[:bestLen], ".") < 2 {
		return ""
	}
	return best
}

// catalogue is the run's source of rule descriptions and catalogue rows:
// its protocols and registry.
func (pl plugins) catalogue() report.Catalogue {
	return report.Catalogue{Protocols: pl.protocols, Registry: pl.registry}
}
