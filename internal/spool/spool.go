// Package spool holds text to be copied out later: in memory while it is
// small, in a temporary file once it passes a bound, so that holding it
// costs a bounded amount of memory however much is written. The output
// formats use it for what they can write only at the end of a trace or of
// the run (a test suite's counts come before its lines; a summary lists
// every trace).
package spool

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// Memory is how much a Spool holds in memory before it moves what it
// holds to a temporary file.
const Memory = 256 << 10

// Spool collects text. The zero value is ready to use; Reset removes its
// temporary file, if it made one.
type Spool struct {
	mem  bytes.Buffer
	file *os.File
	fw   *bufio.Writer // writes to file
	size int64
}

// Write adds p.
func (s *Spool) Write(p []byte) (int, error) {
	if s.file == nil {
		s.mem.Write(p)
		s.size += int64(len(p))
		if s.mem.Len() <= Memory {
			return len(p), nil
		}
		f, err := os.CreateTemp("", "validate-spool-*")
		if err != nil {
			return 0, fmt.Errorf("holding output: %w", err)
		}
		s.file, s.fw = f, bufio.NewWriterSize(f, 64<<10)
		_, err = s.mem.WriteTo(s.fw)
		s.mem = bytes.Buffer{}
		if err != nil {
			return 0, fmt.Errorf("holding output: %w", err)
		}
		return len(p), nil
	}
	n, err := s.fw.Write(p)
	s.size += int64(n)
	if err != nil {
		return n, fmt.Errorf("holding output: %w", err)
	}
	return n, nil
}

// WriteString adds str.
func (s *Spool) WriteString(str string) (int, error) {
	if s.file == nil {
		return s.Write([]byte(str))
	}
	n, err := s.fw.WriteString(str)
	s.size += int64(n)
	if err != nil {
		return n, fmt.Errorf("holding output: %w", err)
	}
	return n, nil
}

// Size is the number of bytes held.
func (s *Spool) Size() int64 { return s.size }

// Reader returns what the spool holds, from its start. Writing to the spool
// while the reader is in use is not allowed.
func (s *Spool) Reader() (io.Reader, error) {
	if s.file == nil {
		return bytes.NewReader(s.mem.Bytes()), nil
	}
	if err := s.fw.Flush(); err != nil {
		return nil, fmt.Errorf("holding output: %w", err)
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading back held output: %w", err)
	}
	return bufio.NewReaderSize(s.file, 64<<10), nil
}

// CopyTo writes what the spool holds to w.
func (s *Spool) CopyTo(w io.Writer) error {
	r, err := s.Reader()
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	if s.file != nil {
		// Writing may go on at the end.
		if _, serr := s.file.Seek(0, io.SeekEnd); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

// Reset empties the spool and removes its file, if any.
func (s *Spool) Reset() {
	if s.file != nil {
		name := s.file.Name()
		s.file.Close()
		os.Remove(name)
		s.file, s.fw = nil, nil
	}
	s.mem.Reset()
	if s.mem.Cap() > Memory {
		s.mem = bytes.Buffer{}
	}
	s.size = 0
}
