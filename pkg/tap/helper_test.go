package tap

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
)

// The test binary doubles as the agent the relay runs: with TAP_TEST_CHILD
// set it plays the part named there instead of running the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("TAP_TEST_CHILD"); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

// childCmd is the command that runs the test binary as a child in mode.
func childCmd(t testing.TB, mode string) (cmd []string, env []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("finding the test binary: %v", err)
	}
	return []string{exe}, append(os.Environ(), "TAP_TEST_CHILD="+mode)
}

// sampleLine is an ACP notification of a typical size.
const sampleLine = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"The parser fails on nested parentheses: the tokenizer drops the closing one."}}}}` + "\n"

func child(mode string) int {
	switch mode {
	case "echo":
		// Every line back as soon as it is read.
		r := bufio.NewReaderSize(os.Stdin, 64<<10)
		for {
			line, err := r.ReadSlice('\n')
			if len(line) > 0 {
				if _, werr := os.Stdout.Write(line); werr != nil {
					return 1
				}
			}
			if err == io.EOF {
				return 0
			}
			if err != nil && err != bufio.ErrBufferFull {
				return 1
			}
		}
	case "drain":
		// Read everything, say nothing.
		if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
			return 1
		}
		return 0
	case "crash":
		// Answer the first line, write half a line, and die.
		r := bufio.NewReader(os.Stdin)
		if _, err := r.ReadString('\n'); err != nil {
			return 1
		}
		fmt.Fprint(os.Stdout, `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"+`{"jsonrpc":"2.0","method":"session/up`)
		fmt.Fprint(os.Stderr, "child: crashing\n")
		return 3
	case "acp", "acp-refuses":
		return scriptedAgent(mode == "acp-refuses")
	case "signal":
		// Wait for SIGTERM and report it in the exit status.
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		fmt.Fprintln(os.Stdout, `{"ready":true}`)
		<-c
		return 42
	}
	if n, err := strconv.Atoi(mode); err == nil {
		// Emit n sample lines as fast as possible, then exit.
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		for i := 0; i < n; i++ {
			if _, err := w.WriteString(sampleLine); err != nil {
				return 1
			}
		}
		if err := w.Flush(); err != nil {
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown TAP_TEST_CHILD %q\n", mode)
	return 2
}

// scriptedAgent answers initialize, session/new (with session "live-1") and
// session/prompt (after asking for a permission, which must name live-1);
// refusing, it answers session/new with an error.
func scriptedAgent(refuse bool) int {
	r := bufio.NewReader(os.Stdin)
	say := func(s string) { fmt.Fprintln(os.Stdout, s) }
	var prompt string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return 0
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				SessionID string `json:"sessionId"`
			} `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) != nil {
			return 1
		}
		switch {
		case m.Method == "initialize":
			say(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{},"authMethods":[]}}`)
		case m.Method == "session/new" && refuse:
			say(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32603,"message":"no"}}`)
		case m.Method == "session/new":
			say(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"sessionId":"live-1"}}`)
		case m.Method == "session/prompt":
			if m.Params.SessionID != "live-1" {
				fmt.Fprintf(os.Stderr, "prompt for session %q\n", m.Params.SessionID)
				return 4
			}
			prompt = string(m.ID)
			say(`{"jsonrpc":"2.0","id":"perm-9","method":"session/request_permission","params":{"sessionId":"live-1","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"ok","name":"OK","kind":"allow_once"}]}}`)
		case m.Method == "" && string(m.ID) == `"perm-9"`:
			say(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"live-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}`)
			say(`{"jsonrpc":"2.0","id":` + prompt + `,"result":{"stopReason":"end_turn"}}`)
		}
	}
}
