package acp

// The checks of a diff's patch text (ACP v2): sections of git's patch
// format with absolute paths, nothing of a commit around them, no file its
// changes do not list, and a patch where a text rendering exists.

import (
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
)

// The values a diff carries that the checks read.
const (
	diffType       = "diff"
	gitPatchFormat = "git_patch"
	devNull        = "/dev/null"
)

// commitHeaders start the lines of a commit or a mail around a patch,
// which a git_patch text does not hold.
var commitHeaders = []string{"From ", "From:", "Subject:", "Date:", "Author:", "commit "}

// diffs checks the diffs among the tool-call content items at each
// pointer of list (a "*" token for every element).
func (s *state) diffs(m *protocol.Message, list []string) {
	for _, ptr := range list {
		base, _, star := strings.Cut(ptr, "/*")
		if !star {
			if o, ok := m.At(base).(map[string]any); ok {
				s.diff(m, o, base)
			}
			continue
		}
		items, _ := m.At(base).([]any)
		for i, it := range items {
			if o, ok := it.(map[string]any); ok {
				s.diff(m, o, base+"/"+itoa(i))
			}
		}
	}
}

// diff checks one content item at ptr, if it is a diff.
func (s *state) diff(m *protocol.Message, o map[string]any, ptr string) {
	if o["type"] != diffType {
		return
	}
	changes, _ := o["changes"].([]any)
	paths := map[string]string{} // path → operation
	textual := ""
	for _, c := range changes {
		ch, _ := c.(map[string]any)
		op, _ := ch["operation"].(string)
		for _, k := range [...]string{"path", "oldPath"} {
			if p, ok := ch[k].(string); ok {
				paths[p] = op
			}
		}
		if ft, _ := ch["fileType"].(string); ft == "text" && op != "delete" && textual == "" {
			textual, _ = ch["path"].(string)
		}
	}
	patch, _ := o["patch"].(map[string]any)
	s.exercise(reqPatchProvided)
	if patch == nil {
		if textual != "" {
			m.Breach(reqPatchProvided, finding.Warning, RuleDiffPatch, ptr, "the diff changes text file %s and has no patch: a diff should include one whenever a text rendering exists (leaving it out is for binary files, symlinks, directories and the like)", protocol.Quote(clip(textual)))
		}
		return
	}
	if f, _ := patch["format"].(string); f != gitPatchFormat {
		return
	}
	text, ok := patch["text"].(string)
	if !ok {
		return
	}
	s.exercise(reqPatchNoCommit)
	s.exercise(reqPatchAbsolute)
	s.exercise(reqPatchConsistent)
	at := ptr + "/patch/text"
	for _, v := range readPatch(text) {
		switch {
		case v.header != "":
			m.Breach(reqPatchNoCommit, finding.Error, RuleDiffPatch, at, "the patch text holds %s (line %d of the text), which is a commit's or a mail's header: a git_patch text holds only diff --git sections, without commit headers or mail envelopes around them", protocol.Quote(clip(v.header)), v.line)
			return
		case !absolute([]byte(v.path)):
			m.Breach(reqPatchAbsolute, finding.Error, RuleDiffPatch, at, "the patch text names path %s (line %d of the text): in a git_patch every path is absolute, without the a/ and b/ prefixes git writes by default (git diff --no-prefix, with absolute paths)", protocol.Quote(clip(v.path)), v.line)
			return
		case paths[v.path] == "" && !hasPath(paths, v.path):
			m.Breach(reqPatchConsistent, finding.Error, RuleDiffPatch, at, "the patch text changes %s (line %d of the text), which the diff's changes do not list: the patch describes only the changes listed, with the same paths", protocol.Quote(clip(v.path)), v.line)
			return
		case v.op != "" && paths[v.path] != "" && paths[v.path] != v.op:
			m.Breach(reqPatchConsistent, finding.Error, RuleDiffPatch, at, "the patch text makes %s a %s (line %d of the text), but its change says %s: the patch describes the changes listed, with the same operations", protocol.Quote(clip(v.path)), v.op, v.line, protocol.Quote(paths[v.path]))
			return
		}
	}
}

func hasPath(paths map[string]string, p string) bool {
	_, ok := paths[p]
	return ok
}

// patchItem is what a patch text says: a header line that does not
// belong (header), or a path a section names (path, and op, the
// operation its extended header line shows: add or delete).
type patchItem struct {
	line     int
	header   string
	path, op string
}

// readPatch reads a git_patch text: the paths its sections name, and any
// commit or mail header line outside the sections' hunks.
func readPatch(text string) []patchItem {
	var out []patchItem
	inHunk, started := false, false
	var section []int // indices in out of the current section's paths
	for i, l := range strings.Split(text, "\n") {
		n := i + 1
		l = strings.TrimSuffix(l, "\r")
		switch {
		case strings.HasPrefix(l, "diff --git "):
			inHunk, started, section = false, true, nil
			for _, p := range gitPaths(strings.TrimPrefix(l, "diff --git ")) {
				section = append(section, len(out))
				out = append(out, patchItem{line: n, path: p})
			}
			continue
		case inHunk && l != "" && strings.ContainsRune(" +-\\", rune(l[0])):
			continue
		case strings.HasPrefix(l, "@@"):
			inHunk = true
			continue
		}
		if started && !inHunk {
			switch {
			case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
				p := l[4:]
				if j := strings.IndexByte(p, '\t'); j >= 0 {
					p = p[:j]
				}
				if p != devNull {
					out = append(out, patchItem{line: n, path: p})
				}
				continue
			case strings.HasPrefix(l, "new file mode"), strings.HasPrefix(l, "deleted file mode"):
				op := "add"
				if l[0] == 'd' {
					op = "delete"
				}
				for _, k := range section {
					out[k].op = op
				}
				continue
			}
		}
		for _, h := range commitHeaders {
			if strings.HasPrefix(l, h) {
				out = append(out, patchItem{line: n, header: l})
				return out
			}
		}
		if !started && strings.TrimSpace(l) != "" {
			out = append(out, patchItem{line: n, header: l})
			return out
		}
	}
	return out
}

// gitPaths splits the two paths of a diff --git line: at the one space
// when there is one, else where the line is the same path twice.
func gitPaths(rest string) []string {
	if strings.Count(rest, " ") == 1 {
		a, b, _ := strings.Cut(rest, " ")
		if a == b {
			return []string{a}
		}
		return []string{a, b}
	}
	if h := len(rest) / 2; len(rest)%2 == 1 && rest[h] == ' ' && rest[:h] == rest[h+1:] {
		return []string{rest[:h]}
	}
	if i := strings.Index(rest, " /"); i > 0 {
		return []string{rest[:i], rest[i+1:]}
	}
	return strings.Fields(rest)
}
