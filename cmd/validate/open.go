package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// openRegular opens p only if it is a regular file when opened: the check
// is made on the open file, so a path swapped for a FIFO or a device after
// a folder was walked is refused, never read and never waited on.
func openRegular(p string) (*os.File, error) {
	f, err := openNoWait(p)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("not a regular file (%s)", kindOf(st.Mode()))
	}
	return f, nil
}

// openTrace opens a named trace. A regular file is read up to the size it
// had when it was opened: a file that grows while it is checked (a log an
// agent still appends to) is checked as it was then, so that a writer
// faster than the reader cannot keep the check going without end. A FIFO or
// a character device named on the command line (validate <(zcat t.gz)) is
// read to its end. walked says the name was found in a folder: it must
// then be a regular file.
func openTrace(name string, walked bool) (io.Reader, io.Closer, error) {
	var f *os.File
	var err error
	if walked {
		f, err = openRegular(name)
	} else {
		f, err = os.Open(name)
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if st.Mode().IsRegular() {
		return &sizedFile{f: f, size: st.Size(), left: st.Size()}, f, nil
	}
	return f, f, nil
}

// sizedFile reads f up to the size it had when opened. It keeps Stat, which
// the trace reader uses to size its buffer.
type sizedFile struct {
	f    *os.File
	size int64        // the size at open
	left int64        // what is still to read of it
	read atomic.Int64 // bytes read, for progress (from another goroutine)
}

func (s *sizedFile) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	n, err := s.f.Read(p)
	s.left -= int64(n)
	s.read.Add(int64(n))
	return n, err
}

func (s *sizedFile) Stat() (os.FileInfo, error) { return s.f.Stat() }
