package tap

import (
	"bufio"
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
