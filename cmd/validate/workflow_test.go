package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/validate/config"
)

// asMain, set in the environment, makes the test binary act as the validate
// command, so that a test can run shell commands that call "validate".
const asMain = "AGENTPROTO_VALIDATE_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// readmeCI returns the fenced blocks of the given language in the root
// README's "Validate in CI" section.
func readmeCI(t *testing.T, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Validate in CI\n")
	if !ok {
		t.Fatal("README.md has no Validate in CI section")
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var blocks []string
	for _, part := range strings.Split(sec, "```"+lang+"\n")[1:] {
		body, _, _ := strings.Cut(part, "```")
		blocks = append(blocks, body)
	}
	if len(blocks) == 0 {
		t.Fatalf("the CI section has no %s block", lang)
	}
	return blocks
}

// step is one step of the README's workflow.
type step struct {
	name, run, uses, ifCond string
	with                    map[string]string
}

// workflowSteps reads the steps of the workflow in the README: the
// subset of YAML it uses (one-line run, uses, if and with values).
func workflowSteps(t *testing.T, yaml string) []step {
	t.Helper()
	var steps []step
	item := regexp.MustCompile(`^\s+- (\w+): (.*)$`)
	field := regexp.MustCompile(`^\s+([\w-]+): (.*)$`)
	inSteps, inWith := false, false
	for _, line := range strings.Split(yaml, "\n") {
		if strings.TrimSpace(line) == "steps:" {
			inSteps = true
			continue
		}
		if !inSteps || strings.TrimSpace(line) == "" {
			continue
		}
		if m := item.FindStringSubmatch(line); m != nil {
			steps = append(steps, step{with: map[string]string{}})
			inWith = false
			line = strings.Replace(line, "- ", "  ", 1)
		}
		if len(steps) == 0 {
			continue
		}
		s := &steps[len(steps)-1]
		if strings.TrimSpace(line) == "with:" {
			inWith = true
			continue
		}
		m := field.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("workflow line not understood: %q", line)
		}
		v := m[2]
		if i := strings.Index(v, " #"); i >= 0 {
			v = v[:i]
		}
		switch {
		case inWith:
			s.with[m[1]] = v
		case m[1] == "name":
			s.name = v
		case m[1] == "run":
			s.run = v
		case m[1] == "uses":
			s.uses = v
		case m[1] == "if":
			s.ifCond = v
		default:
			t.Fatalf("workflow key %q not understood", m[1])
		}
	}
	return steps
}

// TestREADMEWorkflow runs the commands of the README's GitHub Actions
// workflow, as Actions runs them (bash -eo pipefail), in a copy of a
// repository with traces: the adoption command writes a baseline, the
// check passes on known findings and fails with an annotation on a new
// one, and the SARIF step leaves a SARIF log for the upload step.
func TestREADMEWorkflow(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "validate")); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	traces := filepath.Join(repo, "traces")
	if err := os.Mkdir(traces, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFixtures(t, traces, "acp/valid/01-code-review.jsonl", "acp/valid/01-code-review.dir",
		"acp/invalid/01-session-update-schema.jsonl", "acp/invalid/01-session-update-schema.dir", "acp/invalid/01-session-update-schema.expect")
	// The install step builds validate from this checkout, offline, into
	// gobin, which comes first on PATH: the later steps run that build.
	runnerTemp, gobin := t.TempDir(), t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(runnerTemp, "agentproto")); err != nil {
		t.Fatal(err)
	}
	path := gobin + string(os.PathListSeparator) + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	shIn := func(cmd string, env ...string) (int, string) {
		t.Helper()
		c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", cmd)
		c.Dir = repo
		c.Env = append(append(os.Environ(), asMain+"=1", "PATH="+path, "RUNNER_TEMP="+runnerTemp), env...)
		out, err := c.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("%s: %v", cmd, err)
		return 0, ""
	}
	sh := func(cmd string) (int, string) { t.Helper(); return shIn(cmd) }
	installSh := func(cmd string) (int, string) { t.Helper(); return shIn(cmd, offlineGo(gobin)...) }

	// Adoption: the sh block of the section.
	for _, cmd := range strings.Split(strings.TrimSpace(readmeCI(t, "sh")[0]), "\n") {
		if code, out := sh(cmd); code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, code, out)
		}
	}

	steps := workflowSteps(t, readmeCI(t, "yaml")[0])
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	modPath := strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module ")
	runWorkflow := func() (checkCode int, checkOut string) {
		t.Helper()
		ran := 0
		for _, s := range steps {
			switch {
			case strings.Contains(s.run, "go install "):
				// The clone needs the network: the clone is this
				// checkout, and the rest of the step runs as written.
				clone, rest, ok := strings.Cut(s.run, " && ")
				want := `git clone --depth 1 https://` + modPath + ` "$RUNNER_TEMP/agentproto"`
				if !ok || clone != want || !strings.HasSuffix(rest, "go install ./cmd/validate") {
					t.Fatalf("install step %q: want %s && cd \"$RUNNER_TEMP/agentproto\" && go install ./cmd/validate", s.run, want)
				}
				if code, out := installSh(rest); code != 0 {
					t.Fatalf("install step %q: exit %d\n%s", rest, code, out)
				}
			case s.run != "":
				code, out := sh(s.run)
				if strings.Contains(s.run, "--format github") {
					checkCode, checkOut = code, out
				} else if code != 0 {
					t.Fatalf("step %q: exit %d\n%s", s.name, code, out)
				}
				ran++
			case strings.HasPrefix(s.uses, "github/codeql-action/upload-sarif@"):
				b, err := os.ReadFile(filepath.Join(repo, s.with["sarif_file"]))
				if err != nil {
					t.Fatalf("upload step: %v", err)
				}
				if s.ifCond != "always()" {
					t.Errorf("the upload step must run after a failed check (if: always())")
				}
				decodeSARIF(t, string(b))
			}
		}
		if ran < 2 {
			t.Fatalf("the workflow ran %d validate steps", ran)
		}
		return checkCode, checkOut
	}
	if code, out := runWorkflow(); code != 0 {
		t.Fatalf("with every finding in the baseline the check fails: exit %d\n%s", code, out)
	}
	// A new bad trace: the check fails and annotates it; SARIF is written.
	bad := strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}, "\n")
	if err := os.WriteFile(filepath.Join(traces, "new.jsonl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := runWorkflow()
	if code != 1 || !strings.Contains(out, "::error file=traces/new.jsonl,line=5,title=acp schema / acp.schema.shape (agent)::") || strings.Contains(out, "01-session-update-schema") {
		t.Fatalf("a new finding: exit %d, want 1 and its annotation only\n%s", code, out)
	}
}

// TestREADMEConfigExample: the README's .agentproto.json example is a
// valid config.
func TestREADMEConfigExample(t *testing.T) {
	for _, b := range readmeCI(t, "json") {
		if _, err := config.Parse([]byte(b)); err != nil {
			t.Errorf("README config example: %v\n%s", err, b)
		}
	}
}
