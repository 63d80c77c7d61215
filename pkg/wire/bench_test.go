package wire_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/agentproto/agentproto/pkg/wire"
)

// intArray is a JSON array of n integers of the sizes a trace carries (ids,
// sequence numbers, line numbers, byte counts), each within 0..max.
func intArray(n int, max uint64) []byte {
	var b strings.Builder
	b.WriteByte('[')
	v := uint64(7)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		v = v*6364136223846793005 + 1442695040888963407
		b.WriteString(strconv.FormatUint(v%(max+1), 10))
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// benchInts reads every element of an array of integers with read, the way
// a generated decoder reads an integer member.
func benchInts(b *testing.B, max uint64, read func(d *wire.Decoder) error) {
	data := intArray(256, max)
	d := wire.NewDecoder(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d.Reset(data)
		if err := d.BeginArray(); err != nil {
			b.Fatal(err)
		}
		for {
			more, err := d.NextElem()
			if err != nil {
				b.Fatal(err)
			}
			if !more {
				break
			}
			if err := read(d); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// The integer readers, lenient (JSON Schema's integers) and serde
// (serde_json's integer literals), at each width.
func BenchmarkInt64(b *testing.B) {
	benchInts(b, 1<<40, func(d *wire.Decoder) error { _, err := d.Int64(); return err })
}
func BenchmarkInt32(b *testing.B) {
	benchInts(b, 1<<30, func(d *wire.Decoder) error { _, err := d.Int32(); return err })
}
func BenchmarkInt8(b *testing.B) {
	benchInts(b, 100, func(d *wire.Decoder) error { _, err := d.Int8(); return err })
}
func BenchmarkUint64(b *testing.B) {
	benchInts(b, 1<<40, func(d *wire.Decoder) error { _, err := d.Uint64(); return err })
}
func BenchmarkUint32(b *testing.B) {
	benchInts(b, 1<<31, func(d *wire.Decoder) error { _, err := d.Uint32(); return err })
}
func BenchmarkUint16(b *testing.B) {
	benchInts(b, 60000, func(d *wire.Decoder) error { _, err := d.Uint16(); return err })
}
func BenchmarkInt64Serde(b *testing.B) {
	benchInts(b, 1<<40, func(d *wire.Decoder) error { _, err := d.Int64Serde(); return err })
}
func BenchmarkInt32Serde(b *testing.B) {
	benchInts(b, 1<<30, func(d *wire.Decoder) error { _, err := d.Int32Serde(); return err })
}
func BenchmarkUint64Serde(b *testing.B) {
	benchInts(b, 1<<40, func(d *wire.Decoder) error { _, err := d.Uint64Serde(); return err })
}
func BenchmarkUint32Serde(b *testing.B) {
	benchInts(b, 1<<31, func(d *wire.Decoder) error { _, err := d.Uint32Serde(); return err })
}

// BenchmarkSkip steps over a realistic ACP line without an Ends, as the
// decoder does for a member it keeps raw.
func BenchmarkSkip(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Reading the file \u00e9 and checking \"quotes\" now."}}},"seq":[1,2,3,40000,5e3,-1.5]}`)
	d := wire.NewDecoder(line)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		d.Reset(line)
		if err := d.Skip(); err != nil {
			b.Fatal(err)
		}
	}
}
