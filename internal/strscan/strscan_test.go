package strscan

import (
	"bytes"
	"testing"
)

// naive is Plain byte by byte.
func naive(b []byte) int {
	for i, c := range b {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return len(b)
}

func TestPlain(t *testing.T) {
	base := []byte("Reading the configuration loader to see where it comes from.")
	for _, c := range []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff, '!', '#', '[', ']', 0x5b} {
		for at := 0; at < 24; at++ {
			b := bytes.Clone(base)
			b[at] = c
			if got, want := Plain(b), naive(b); got != want {
				t.Errorf("byte %#02x at %d: Plain %d, want %d", c, at, got, want)
			}
		}
	}
	for n := 0; n < 20; n++ {
		if got := Plain(base[:n]); got != n {
			t.Errorf("plain prefix of %d bytes: %d", n, got)
		}
	}
}

func FuzzPlain(f *testing.F) {
	f.Add([]byte(`plain text "quoted"`))
	f.Add([]byte("été\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Plain(b), naive(b); got != want {
			t.Fatalf("%q: Plain %d, want %d", b, got, want)
		}
	})
}

func BenchmarkPlain(b *testing.B) {
	text := bytes.Repeat([]byte("Reading the configuration loader. "), 4)
	b.SetBytes(int64(len(text)))
	b.Run("swar", func(b *testing.B) {
		for range b.N {
			if Plain(text) != len(text) {
				b.Fatal("not plain")
			}
		}
	})
	b.Run("bytewise", func(b *testing.B) {
		for range b.N {
			if naive(text) != len(text) {
				b.Fatal("not plain")
			}
		}
	})
}

// BenchmarkPlainKeys is Plain over what a JSON decoder meets most: short
// member names and values, each with the rest of its line after it.
func BenchmarkPlainKeys(b *testing.B) {
	line := []byte(`jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}}}`)
	var starts []int
	for i := 0; i < len(line); i++ {
		if i == 0 || line[i-1] == '"' && (i < 2 || line[i-2] != '\\') {
			starts = append(starts, i)
		}
	}
	b.ResetTimer()
	for range b.N {
		for _, s := range starts {
			_ = Plain(line[s:])
		}
	}
}
