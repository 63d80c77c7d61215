package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// spoolMemory is how much a spool holds in memory before it moves what it
// holds to a temporary file.
const spoolMemory = 256 << 10

// spool collects text to be copied out later: in memory while it is small,
// in a temporary file once it passes spoolMemory, so that holding it costs
// a bounded amount of memory however much is written. The zero value is
// ready to use.
type spool struct {
	mem  bytes.Buffer
	file *os.File
	fw   *bufio.Writer // writes to file
	size int64
}

func (s *spool) printf(format string, a ...any) error {
	if s.file == nil {
		n0 := s.mem.Len()
		fmt.Fprintf(&s.mem, format, a...)
		s.size += int64(s.mem.Len() - n0)
		if s.mem.Len() <= spoolMemory {
			return nil
		}
		f, err := os.CreateTemp("", "validate-spool-*")
		if err != nil {
			return fmt.Errorf("holding output for a trace with many findings: %w", err)
		}
		s.file, s.fw = f, bufio.NewWriterSize(f, 64<<10)
		_, err = s.mem.WriteTo(s.fw)
		s.mem = bytes.Buffer{}
		if err != nil {
			return fmt.Errorf("holding output for a trace with many findings: %w", err)
		}
		return nil
	}
	n, err := fmt.Fprintf(s.fw, format, a...)
	s.size += int64(n)
	if err != nil {
		return fmt.Errorf("holding output for a trace with many findings: %w", err)
	}
	return nil
}

// copyTo writes what the spool holds to w.
func (s *spool) copyTo(w io.Writer) error {
	if s.file == nil {
		_, err := w.Write(s.mem.Bytes())
		return err
	}
	if err := s.fw.Flush(); err != nil {
		return fmt.Errorf("holding output for a trace with many findings: %w", err)
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("reading back held output: %w", err)
	}
	_, err := io.Copy(w, s.file)
	return err
}

// reset empties the spool and removes its file, if any.
func (s *spool) reset() {
	if s.file != nil {
		name := s.file.Name()
		s.file.Close()
		os.Remove(name)
		s.file, s.fw = nil, nil
	}
	s.mem.Reset()
	if s.mem.Cap() > spoolMemory {
		s.mem = bytes.Buffer{}
	}
	s.size = 0
}
