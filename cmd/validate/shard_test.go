package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// shardFolder writes a folder of traces for the shard tests: valid ones,
// ones with errors or only warnings in each protocol, an empty one, and
// names that sort differently as paths than as walk order (b.jsonl beside
// a folder b/).
func shardFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	lines := []string{
		strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpExtra}, "\n"),
		strings.Join([]string{acpInit, acpInitResp, acpNew, acpNewResp, acpBadType}, "\n"),
		acpInit,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`,
		`{"arcp":"1.1","id":"m1","type":"session.hello","payload":{}}`,
		`{"part_type":"run_started","run_id":"r1"}`,
		"not json\n" + acpInit,
		"",
	}
	n := 0
	for _, sub := range []string{"", "b", "b/c", "b-d", "z"} {
		for i := range 7 {
			name := filepath.Join(dir, sub, fmt.Sprintf("t%02d.jsonl", i))
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(lines[n%len(lines)]+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(acpInit+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestShardsMerge: four shards of a folder, each checked on its own and
// merged with --merge, give the report of one run over the folder, byte
// for byte, with its exit status, in JSON, SARIF and JUnit, and JSON
// shards merge into the text one run prints; the shards share the traces
// out, each to one shard.
func TestShardsMerge(t *testing.T) {
	dir := shardFolder(t)
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  int
	}{
		{"findings", func(*testing.T, string) {}, exitFindings},
		{"unreadable", func(t *testing.T, dir string) {
			if runtime.GOOS == "windows" {
				t.Skip("symbolic links")
			}
			// A link out of the folder is an io finding: the run,
			// and so the merge, exits 2.
			if err := os.Symlink(filepath.Join(t.TempDir(), "gone.jsonl"), filepath.Join(dir, "b", "gone.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, exitUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.setup(t, dir)
			out := t.TempDir()
			for _, format := range []string{"json", "sarif", "junit"} {
				code, one, errs := runCLI(t, "", "--progress", "never", "--format", format, dir)
				if code != c.want {
					t.Fatalf("--format %s: one run exits %d, want %d\n%s", format, code, c.want, errs)
				}
				var reports []string
				for k := 1; k <= 4; k++ {
					_, shard, errs := runCLI(t, "", "--progress", "never", "--format", format, "--shard", fmt.Sprintf("%d/4", k), dir)
					if strings.Contains(errs, "usage") || shard == "" {
						t.Fatalf("--shard %d/4 --format %s wrote nothing:\n%s", k, format, errs)
					}
					p := filepath.Join(out, fmt.Sprintf("shard-%d.%s", k, format))
					if err := os.WriteFile(p, []byte(shard), 0o644); err != nil {
						t.Fatal(err)
					}
					reports = append(reports, p)
				}
				// The shards' order on the command line does not matter.
				reports[0], reports[3] = reports[3], reports[0]
				mcode, merged, errs := runCLI(t, "", append([]string{"--merge"}, reports...)...)
				if mcode != code {
					t.Errorf("--format %s: the merge exits %d, one run %d\n%s", format, mcode, code, errs)
				}
				if merged != one {
					t.Errorf("--format %s: the merged report differs from one run's:\n%s", format, firstDiff(merged, one))
				}
				if format == "json" {
					_, text, _ := runCLI(t, "", "--progress", "never", dir)
					if _, mtext, errs := runCLI(t, "", append([]string{"--merge", "--format", "text"}, reports...)...); mtext != text {
						t.Errorf("JSON shards merged as text differ from one run's text:\n%s%s", firstDiff(mtext, text), errs)
					}
					checkPartition(t, reports)
				}
			}
		})
	}
}

// checkPartition: the JSON reports of the shards list every trace of the
// folder once, none in two shards, and no shard is empty.
func checkPartition(t *testing.T, reports []string) {
	t.Helper()
	seen := map[string]int{}
	for i, r := range reports {
		b, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		var s jsonSummary
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Summary.Detected) == 0 {
			t.Errorf("%s lists no trace: 36 traces in four shards should leave none empty", r)
		}
		for _, d := range s.Summary.Detected {
			if j, ok := seen[d.File]; ok {
				t.Errorf("%s is in shard %d and %d", d.File, j+1, i+1)
			}
			seen[d.File] = i
		}
	}
	if len(seen) != 36 {
		t.Errorf("the shards list %d traces, want the folder's 36", len(seen))
	}
}

// firstDiff shows where two reports first differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %.300s\n want %.300s\n", i+1, gl, wl)
		}
	}
	return ""
}

// TestShardFlag: --shard takes K/N with 1 <= K <= N, and a shard that
// gets no trace is an empty report, no error.
func TestShardFlag(t *testing.T) {
	p := writeFile(t, "one.jsonl", strings.Join([]string{acpInit, acpInitResp}, "\n"))
	for _, bad := range []string{"0/4", "5/4", "1/0", "2", "a/b", "-1/3"} {
		if code, _, errs := runCLI(t, "", "--shard", bad, p); code != exitUsage || !strings.Contains(errs, "K/N") {
			t.Errorf("--shard %s: exit %d, stderr %q; want a usage error naming K/N", bad, code, errs)
		}
	}
	home := shardOf(p, 3)
	for k := 1; k <= 3; k++ {
		code, out, errs := runCLI(t, "", "--format", "json", "--shard", fmt.Sprintf("%d/3", k), p)
		if code != exitOK {
			t.Errorf("--shard %d/3: exit %d\n%s", k, code, errs)
		}
		if has := strings.Contains(out, `"files":1,`); has != (k == home) {
			t.Errorf("--shard %d/3 of a trace of shard %d: %s", k, home, out)
		}
	}
}

// TestMergeRefuses: --merge reads reports of one format, written by
// validate, and refuses what it cannot join.
func TestMergeRefuses(t *testing.T) {
	trace := writeFile(t, "t.jsonl", acpInit+"\n")
	_, js, _ := runCLI(t, "", "--format", "json", trace)
	_, sarif, _ := runCLI(t, "", "--format", "sarif", trace)
	jp, sp := writeFile(t, "a.json", js), writeFile(t, "a.sarif", sarif)
	cut := writeFile(t, "cut.json", strings.SplitAfter(js, "\n")[0])
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--merge"}, "name the reports"},
		{[]string{"--merge", jp, sp}, "one format"},
		{[]string{"--merge", "--format", "json", sp}, "merge into sarif only"},
		{[]string{"--merge", "--format", "html", jp}, "any format but html"},
		{[]string{"--merge", trace}, "not a report"},
		{[]string{"--merge", cut}, "no summary line"},
		{[]string{"--merge", "-"}, "standard input"},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("validate %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}

// TestREADMEMatrix runs the validate commands of the README's sharded
// workflow as Actions would (bash -eo pipefail): each shard job's check
// with its matrix value, then the merge job's merge of their SARIF. The
// merged log and the merge's exit status are those of one run over the
// traces.
func TestREADMEMatrix(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	var matrix string
	for _, blk := range readmeCI(t, "yaml") {
		if strings.Contains(blk, "--shard ") {
			matrix = blk
		}
	}
	shardJob, mergeJob, ok := strings.Cut(matrix, "\n  merge:\n")
	if !ok {
		t.Fatalf("the README's CI section has no workflow with a shard job and a merge job:\n%s", matrix)
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
	if err := os.Rename(shardFolder(t), filepath.Join(repo, "traces")); err != nil {
		t.Fatal(err)
	}
	sh := func(cmd string) (int, string) {
		t.Helper()
		c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", cmd)
		c.Dir = repo
		c.Env = append(os.Environ(), asMain+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
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
	validateSteps := func(job string) []string {
		var runs []string
		for _, s := range workflowSteps(t, job) {
			if strings.HasPrefix(s.run, "validate ") {
				runs = append(runs, s.run)
			}
		}
		if len(runs) != 1 {
			t.Fatalf("want one validate step in the job, got %q", runs)
		}
		return runs
	}
	check := validateSteps(shardJob)[0]
	for k := 1; k <= 4; k++ {
		cmd := strings.ReplaceAll(check, "${{ matrix.shard }}", fmt.Sprint(k))
		if code, out := sh(cmd); code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, code, out)
		}
	}
	mcode, out := sh(validateSteps(mergeJob)[0])
	code, _ := sh("validate --format sarif traces/ > one.sarif")
	if mcode != code || code != exitFindings {
		t.Errorf("the merge step exits %d, one run %d (want %d)\n%s", mcode, code, exitFindings, out)
	}
	merged, err := os.ReadFile(filepath.Join(repo, "validate.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	oneRun, err := os.ReadFile(filepath.Join(repo, "one.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	one := string(oneRun)
	if string(merged) != one {
		t.Errorf("the merged SARIF differs from one run's:\n%s", firstDiff(string(merged), one))
	}
}
