package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// yamlLine is one meaningful line of a YAML file: its indentation and text.
type yamlLine struct {
	indent int
	text   string
}

// parseYAML reads the block subset of YAML the repository's action and hook
// files use: mappings, lists, and plain or quoted one-line scalars. Maps
// become map[string]any, lists []any, scalars string.
func parseYAML(t *testing.T, src string) any {
	t.Helper()
	var lines []yamlLine
	for _, l := range strings.Split(src, "\n") {
		text := strings.TrimLeft(l, " ")
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		lines = append(lines, yamlLine{len(l) - len(text), strings.TrimRight(text, " ")})
	}
	v, next := yamlBlock(t, lines, 0)
	if next != len(lines) {
		t.Fatalf("YAML line not understood: %q", lines[next].text)
	}
	return v
}

func yamlBlock(t *testing.T, lines []yamlLine, i int) (any, int) {
	t.Helper()
	indent := lines[i].indent
	if strings.HasPrefix(lines[i].text, "- ") {
		var list []any
		for i < len(lines) && lines[i].indent == indent && strings.HasPrefix(lines[i].text, "- ") {
			// The item is a mapping whose first line follows "- ".
			lines[i] = yamlLine{indent + 2, strings.TrimPrefix(lines[i].text, "- ")}
			var item any
			item, i = yamlBlock(t, lines, i)
			list = append(list, item)
		}
		return list, i
	}
	m := map[string]any{}
	for i < len(lines) && lines[i].indent == indent {
		key, val, ok := strings.Cut(lines[i].text, ":")
		if !ok || (val != "" && val[0] != ' ') {
			t.Fatalf("YAML line not understood: %q", lines[i].text)
		}
		val = strings.TrimSpace(val)
		i++
		if val == "" {
			if i < len(lines) && lines[i].indent > indent {
				m[key], i = yamlBlock(t, lines, i)
			} else {
				m[key] = ""
			}
			continue
		}
		m[key] = yamlScalar(t, val)
	}
	return m, i
}

func yamlScalar(t *testing.T, s string) string {
	t.Helper()
	switch {
	case strings.HasPrefix(s, "'"):
		if !strings.HasSuffix(s, "'") || len(s) < 2 {
			t.Fatalf("YAML scalar not understood: %s", s)
		}
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	case strings.HasPrefix(s, `"`):
		u, err := strconv.Unquote(s)
		if err != nil {
			t.Fatalf("YAML scalar %s: %v", s, err)
		}
		return u
	case strings.HasPrefix(s, "|"), strings.HasPrefix(s, ">"), strings.HasPrefix(s, "["), strings.HasPrefix(s, "{"):
		t.Fatalf("YAML scalar not understood (block and flow styles are not): %s", s)
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// repoRoot is the repository's root folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestAction runs the steps of action.yml as GitHub Actions would, on a
// copy of a repository with traces: inputs and expressions are
// substituted, if conditions decided, and each run step is run by bash
// with the action's environment (GITHUB_ACTION_PATH this checkout,
// RUNNER_TEMP a temporary folder) and offline Go. With clean traces every
// step succeeds and SARIF is written; with a bad trace the check step
// fails with its annotation and the SARIF step still writes the log.
func TestAction(t *testing.T) {
	if testing.Short() {
		t.Skip("builds validate; skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	action := parseYAML(t, string(b)).(map[string]any)
	runs := action["runs"].(map[string]any)
	if runs["using"] != "composite" {
		t.Fatalf("action.yml runs using %v, want composite", runs["using"])
	}
	inputs := map[string]string{}
	for name, in := range action["inputs"].(map[string]any) {
		inputs[name] = in.(map[string]any)["default"].(string)
	}

	repo, runnerTemp := t.TempDir(), t.TempDir()
	traces := filepath.Join(repo, "traces")
	if err := os.Mkdir(traces, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFixtures(t, traces, "acp/valid/01-code-review.jsonl", "acp/valid/01-code-review.dir")

	// outputs are the steps' outputs by step id (GITHUB_OUTPUT); cache is
	// the Actions cache (a folder per key), which outlives a run.
	outputs := map[string]map[string]string{}
	cache := map[string]string{}
	expr := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
	subst := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case strings.HasPrefix(e, "inputs."):
				v, ok := inputs[strings.TrimPrefix(e, "inputs.")]
				if !ok {
					t.Fatalf("action.yml uses the undeclared %s", e)
				}
				return v
			case e == "github.action_path":
				return root
			case e == "runner.temp":
				return runnerTemp
			}
			if m := regexp.MustCompile(`^steps\.([\w-]+)\.outputs\.([\w-]+)$`).FindStringSubmatch(e); m != nil {
				return outputs[m[1]][m[2]]
			}
			t.Fatalf("expression %q not understood", e)
			return ""
		})
	}
	// cond decides the if conditions the action uses, after a failed step
	// or not.
	cond := func(c string, failed bool) bool {
		if c == "" {
			return !failed
		}
		always := false
		ok := true
		for _, part := range strings.Split(c, " && ") {
			m := regexp.MustCompile(`^inputs\.([\w-]+) (==|!=) '(.*)'$`).FindStringSubmatch(part)
			o := regexp.MustCompile(`^steps\.([\w-]+)\.outputs\.([\w-]+) (==|!=) '(.*)'$`).FindStringSubmatch(part)
			switch {
			case part == "always()":
				always = true
			case m != nil:
				ok = ok && (inputs[m[1]] == m[3]) == (m[2] == "==")
			case o != nil:
				ok = ok && (outputs[o[1]][o[2]] == o[4]) == (o[3] == "==")
			default:
				t.Fatalf("if condition %q not understood", c)
			}
		}
		return ok && (always || !failed)
	}
	type result struct {
		name string
		code int
		out  string
	}
	runAction := func() []result {
		t.Helper()
		var results []result
		failed := false
		clear(outputs)
		var saves [][2]string // the caches to save when the job ends: path, key
		defer func() {
			for _, sv := range saves {
				if _, err := os.Stat(sv[0]); err == nil {
					dst := filepath.Join(t.TempDir(), "cache")
					if err := os.CopyFS(dst, os.DirFS(sv[0])); err != nil {
						t.Fatal(err)
					}
					cache[sv[1]] = dst
				}
			}
		}()
		for _, s := range runs["steps"].([]any) {
			step := s.(map[string]any)
			name, _ := step["name"].(string)
			id, _ := step["id"].(string)
			c, _ := step["if"].(string)
			if !cond(c, failed) {
				continue
			}
			if uses, ok := step["uses"].(string); ok {
				switch {
				case strings.HasPrefix(uses, "actions/setup-go@"):
					// Setting up Go is the runner's business; this
					// test runs the go on PATH.
					results = append(results, result{name: name})
				case strings.HasPrefix(uses, "actions/cache@"):
					with := step["with"].(map[string]any)
					path, key := subst(with["path"].(string)), subst(with["key"].(string))
					if key == "" {
						t.Fatalf("step %q: an empty cache key", name)
					}
					outputs[id] = map[string]string{}
					if from, ok := cache[key]; ok {
						os.RemoveAll(path)
						if err := os.CopyFS(path, os.DirFS(from)); err != nil {
							t.Fatal(err)
						}
						outputs[id]["cache-hit"] = "true"
					} else {
						saves = append(saves, [2]string{path, key})
					}
					results = append(results, result{name: name})
				default:
					t.Fatalf("step %q uses %s, which this test cannot run", name, uses)
				}
				continue
			}
			if step["shell"] != "bash" {
				t.Fatalf("step %q: shell %v, want bash (composite steps must name it)", name, step["shell"])
			}
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", subst(step["run"].(string)))
			cmd.Dir = repo
			ghOut := filepath.Join(t.TempDir(), "output")
			cmd.Env = append(os.Environ(), "GITHUB_ACTION_PATH="+root, "RUNNER_TEMP="+runnerTemp, "GITHUB_WORKSPACE="+repo, "GITHUB_OUTPUT="+ghOut, "RUNNER_OS=Linux", "RUNNER_ARCH=X64")
			cmd.Env = append(cmd.Env, offlineGo("")[:4]...)
			if env, ok := step["env"].(map[string]any); ok {
				for k, v := range env {
					cmd.Env = append(cmd.Env, k+"="+subst(v.(string)))
				}
			}
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("step %q: %v", name, err)
			}
			if code != 0 {
				failed = true
			}
			if b, err := os.ReadFile(ghOut); err == nil && id != "" {
				outputs[id] = map[string]string{}
				for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					if k, v, ok := strings.Cut(l, "="); ok {
						outputs[id][k] = v
					}
				}
			}
			results = append(results, result{name, code, string(out)})
		}
		return results
	}
	find := func(rs []result, name string) result {
		t.Helper()
		for _, r := range rs {
			if r.name == name {
				return r
			}
		}
		t.Fatalf("step %q did not run; ran %v", name, rs)
		return result{}
	}

	// Clean traces: every step succeeds and the SARIF log is written.
	rs := runAction()
	for _, r := range rs {
		if r.code != 0 {
			t.Fatalf("clean traces: step %q: exit %d\n%s", r.name, r.code, r.out)
		}
	}
	if _, err := os.Stat(filepath.Join(runnerTemp, "agentproto-validate", "validate")); err != nil {
		t.Fatalf("the build step did not build validate: %v", err)
	}
	find(rs, "Build validate")
	find(rs, "Set up Go")
	if len(cache) != 1 {
		t.Fatalf("the job saved %d caches, want the built validate", len(cache))
	}

	// The next run of the same action restores validate from the cache:
	// no Go set up, no build.
	os.RemoveAll(filepath.Join(runnerTemp, "agentproto-validate"))
	rs = runAction()
	for _, r := range rs {
		if r.name == "Build validate" || r.name == "Set up Go" {
			t.Errorf("with validate in the cache, the step %q ran", r.name)
		}
		if r.code != 0 {
			t.Fatalf("clean traces, from the cache: step %q: exit %d\n%s", r.name, r.code, r.out)
		}
	}
	sarif, err := os.ReadFile(filepath.Join(repo, inputs["sarif"]))
	if err != nil {
		t.Fatal(err)
	}
	if log := decodeSARIF(t, string(sarif)); len(log.Runs[0].Results) != 0 {
		t.Errorf("clean traces: %d SARIF results", len(log.Runs[0].Results))
	}

	// A bad trace: the check fails with an annotation, SARIF still comes.
	bad := strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}, "\n")
	if err := os.WriteFile(filepath.Join(traces, "new.jsonl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(repo, inputs["sarif"]))
	rs = runAction()
	check := find(rs, "Check the traces")
	if check.code != 1 || !strings.Contains(check.out, "::error file=traces/new.jsonl,line=5,") {
		t.Fatalf("bad trace: the check step exits %d, want 1 with an annotation\n%s", check.code, check.out)
	}
	if w := find(rs, "Write SARIF"); w.code != 0 {
		t.Fatalf("bad trace: the SARIF step exits %d\n%s", w.code, w.out)
	}
	sarif, err = os.ReadFile(filepath.Join(repo, inputs["sarif"]))
	if err != nil {
		t.Fatal(err)
	}
	if log := decodeSARIF(t, string(sarif)); len(log.Runs[0].Results) != 1 {
		t.Errorf("bad trace: %d SARIF results, want 1", len(log.Runs[0].Results))
	}

	// Flags through args: --disable schema makes the same traces pass.
	// Without the cache, validate is built again.
	inputs["args"] = "--disable schema"
	inputs["sarif"] = ""
	inputs["cache"] = "false"
	rs = runAction()
	if c := find(rs, "Check the traces"); c.code != 0 {
		t.Errorf("args --disable schema: the check exits %d\n%s", c.code, c.out)
	}
	find(rs, "Build validate")
	for _, r := range rs {
		if r.name == "Write SARIF" {
			t.Errorf("sarif empty: the SARIF step ran")
		}
	}
}

// TestPreCommitHook runs the hook of .pre-commit-hooks.yaml as pre-commit
// does for language golang: go install ./... in the repository (offline,
// into a temporary GOBIN), then the entry with the staged files its files
// pattern selects (sidecars and other files are left out). A commit of
// valid traces passes; one with a bad trace fails with the finding.
func TestPreCommitHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the repository's commands; skipped with -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hooks := parseYAML(t, string(b)).([]any)
	if len(hooks) != 1 {
		t.Fatalf("%d hooks, want 1", len(hooks))
	}
	hook := hooks[0].(map[string]any)
	for _, k := range []string{"id", "name", "entry", "language", "files"} {
		if hook[k] == nil || hook[k] == "" {
			t.Fatalf("the hook has no %s", k)
		}
	}
	if hook["language"] != "golang" {
		t.Fatalf("language %v: this test runs golang hooks", hook["language"])
	}
	files := regexp.MustCompile(hook["files"].(string))

	gobin := t.TempDir()
	install := exec.Command("go", "install", "./...")
	install.Dir = root
	install.Env = append(os.Environ(), offlineGo(gobin)...)
	if out, err := install.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "GOPROXY=off") {
			t.Skipf("the module cache lacks a dependency and the proxy is off:\n%s", out)
		}
		t.Fatalf("go install ./...: %v\n%s", err, out)
	}

	repo := t.TempDir()
	copyFixtures(t, repo, "acp/valid/01-code-review.jsonl", "acp/valid/01-code-review.dir", "acp/invalid/01-session-update-schema.jsonl", "acp/invalid/01-session-update-schema.dir", "acp/invalid/01-session-update-schema.expect")
	if err := os.WriteFile(filepath.Join(repo, "notes.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runHook := func(staged ...string) (int, string) {
		t.Helper()
		var args []string
		for _, f := range staged {
			if files.MatchString(f) {
				args = append(args, f)
			}
		}
		entry := strings.Fields(hook["entry"].(string))
		cmd := exec.Command(filepath.Join(gobin, entry[0]), append(entry[1:], args...)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := runHook("01-code-review.jsonl", "01-code-review.dir", "notes.md"); code != 0 || !strings.Contains(out, "1 file") {
		t.Errorf("valid trace staged: exit %d, want 0 and one file checked\n%s", code, out)
	}
	code, out := runHook("01-code-review.jsonl", "01-session-update-schema.jsonl", "01-session-update-schema.dir", "01-session-update-schema.expect")
	if code != 1 || !strings.Contains(out, "01-session-update-schema.jsonl:6: error:") {
		t.Errorf("bad trace staged: exit %d, want 1 and its finding\n%s", code, out)
	}
}

// TestREADMEActionAndHook: the README's action snippet passes only inputs
// action.yml declares, and its pre-commit snippet names the hook's id.
func TestREADMEActionAndHook(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := parseYAML(t, string(b)).(map[string]any)["inputs"].(map[string]any)
	b, err = os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	id := parseYAML(t, string(b)).([]any)[0].(map[string]any)["id"].(string)
	blocks := readmeCI(t, "yaml")
	var action, hook bool
	for _, blk := range blocks {
		if strings.Contains(blk, "uses: agentproto/agentproto@") {
			action = true
			with := parseYAML(t, blk).([]any)[0].(map[string]any)["with"].(map[string]any)
			for k := range with {
				if inputs[k] == nil {
					t.Errorf("the README passes the action %s, which action.yml does not declare", k)
				}
			}
		}
		if strings.Contains(blk, "- id: ") {
			hook = true
			if !strings.Contains(blk, "- id: "+id+"\n") {
				t.Errorf("the README's pre-commit snippet does not name the hook %s:\n%s", id, blk)
			}
		}
	}
	if !action || !hook {
		t.Errorf("the README's CI section shows the action: %v, the hook: %v", action, hook)
	}
}
