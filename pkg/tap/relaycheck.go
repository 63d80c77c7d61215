package tap

import (
	"context"

	"github.com/agentproto/agentproto/pkg/validate"
)

// RelayCheck is live validation for a network relay (NewWSRelay,
// NewHTTPRelay): each trace the relay sees (a WebSocket connection, an
// event stream) is checked as it flows by a Live of its own, under the
// name its recording has, so that its findings are those of a later check
// of the recording.
type RelayCheck struct {
	// Engine checks the traces.
	Engine *validate.Engine
	// Backlog bounds the bytes queued for each trace's engine (0:
	// DefaultBacklog); past it, that trace's live validation stops and
	// the relay goes on.
	Backlog int
	// Report is given each finding, in line order within a trace. The
	// traces are checked at once, each on goroutines of its own: Report
	// must be safe for concurrent use, and should not block (it delays
	// validation, never the relay).
	Report func(validate.Finding)
	// Done, if set, is called when a trace has ended and its check with
	// it, with the trace's name and what Live.Close returns (the error
	// says why a check stopped early: a backlog passed, a line lost).
	Done func(name string, sum validate.Summary, st LiveStats, err error)
}

// start starts checking the trace name: a WebSocket connection's frames
// (sidecar true, the protocol the sidecar's names are chosen for) or an
// event stream's bytes.
func (c *RelayCheck) start(name, protocol string, sidecar bool) *Live {
	return newLive(context.Background(), c.Engine, name, protocol, c.Backlog, sidecar, c.Report)
}

// end waits for the check of the trace name to report its last findings,
// then calls Done.
func (c *RelayCheck) end(name string, l *Live) {
	sum, st, err := l.Close()
	if c.Done != nil {
		c.Done(name, sum, st, err)
	}
}

// backlogOf is the backlog a Live is given for backlog.
func backlogOf(backlog int) int {
	if backlog <= 0 {
		return DefaultBacklog
	}
	return backlog
}
