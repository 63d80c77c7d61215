package main

import (
	"errors"
	"io"
	"sync"
	"time"
)

// tapOutputWait is how long, once the agent's session is over, the tap
// waits for its outputs (findings, summary, messages) to be taken: an
// output nobody reads (a stderr pipe whose reader has stopped) must not
// keep the tap from ending.
const tapOutputWait = 5 * time.Second

var errOutputStuck = errors.New("the output is not being read")

// deadlineWriter writes to w until a deadline: a write that has not
// completed by then is abandoned (it goes on in the background, and the
// process may end before it does), and every later write fails at once.
// It is safe for concurrent use.
type deadlineWriter struct {
	w        io.Writer
	deadline time.Time
	mu       sync.Mutex
	stuck    bool
}

func newDeadlineWriter(w io.Writer, wait time.Duration) *deadlineWriter {
	return &deadlineWriter{w: w, deadline: time.Now().Add(wait)}
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stuck {
		return 0, errOutputStuck
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	b := append([]byte(nil), p...) // the write may outlive this call
	go func() {
		n, err := d.w.Write(b)
		done <- result{n, err}
	}()
	t := time.NewTimer(time.Until(d.deadline))
	defer t.Stop()
	select {
	case r := <-done:
		return r.n, r.err
	case <-t.C:
		d.stuck = true
		return 0, errOutputStuck
	}
}

// giveUp makes every later write fail at once: the output is known to be
// stuck.
func (d *deadlineWriter) giveUp() {
	d.mu.Lock()
	d.stuck = true
	d.mu.Unlock()
}
