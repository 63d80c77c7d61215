// Package examples holds runnable programs built on agentproto's packages;
// this test proves the ACP ones against the official ACP TypeScript SDK.
package examples

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

var recorderDir = filepath.Join("..", "conformance", "acp-recorder")

// needSDK skips the test unless node and the recorder's npm packages are
// installed.
func needSDK(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: this test runs the official ACP SDK's apps with it")
	}
	if _, err := os.Stat(filepath.Join(recorderDir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the ACP SDK is not installed: run npm ci --prefix conformance/acp-recorder")
	}
	return node
}

// build builds the packages into dir and returns the binaries' paths.
func build(t *testing.T, dir string, pkgs ...string) []string {
	t.Helper()
	var bins []string
	for _, p := range pkgs {
		bin := filepath.Join(dir, filepath.Base(p))
		cmd := exec.Command("go", "build", "-o", bin, p)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", p, err, out)
		}
		bins = append(bins, bin)
	}
	return bins
}

var summary = regexp.MustCompile(`(?m)^summary: .* messages: (\d+) errors`)

// checkRun runs cmd, which relays through validate --record, and fails on a
// failed exit or any error finding.
func checkRun(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.Dir = recorderDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	m := summary.FindSubmatch(out.Bytes())
	if err != nil || m == nil || string(m[1]) != "0" {
		t.Errorf("%v: %v; want a successful run with no error findings:\n%s", cmd.Args, err, out.String())
	}
}

// The official SDK's client drives the example agent, and the example
// client drives the official SDK's agent, each through validate's tap.
func TestExamplesAgainstTheOfficialSDK(t *testing.T) {
	node := needSDK(t)
	dir := t.TempDir()
	bins := build(t, dir, "github.com/agentproto/agentproto/examples/acp-agent", "github.com/agentproto/agentproto/examples/acp-client", "github.com/agentproto/agentproto/cmd/validate")
	agent, client, validate := bins[0], bins[1], bins[2]
	for _, sc := range []string{"02-prompt-all-updates", "03-permissions", "04-terminals-fs", "07-cancel"} {
		t.Run("agent/"+sc, func(t *testing.T) {
			checkRun(t, exec.Command(node, "stdio-client.mjs", "--scenario", sc, "--", validate, "--record", filepath.Join(dir, sc+".jsonl"), "--", agent))
		})
	}
	t.Run("client", func(t *testing.T) {
		checkRun(t, exec.Command(client, "-cwd", "/home/dev/project", "all-updates: fix the parser", "permissions: write the files", "max-tokens: go on", "refusal: no",
			"--", validate, "--record", filepath.Join(dir, "client.jsonl"), "--", node, "stdio-agent.mjs"))
	})
}
