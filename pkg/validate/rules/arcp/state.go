package arcp

import (
	"fmt"
	"regexp"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// This file holds the state of the one interpreter of an ARCP table: the
// checks and effects a table may name, and what the trace showed of its
// sessions and jobs. apply.go runs the effects of dispatch.json's messages
// (hello, welcome, resume, submit, refuse, accept, subscribe, list) and its
// rules, each applied by the check it names. None of them knows a message
// type; the tables give them all.

// Checks an ARCP rule may name (registry.ARCPRule.Check).
const (
	checkSequence     = "sequence"      // findings "gap", "order"
	checkSession      = "session"       // session ids the welcome announced
	checkFeatures     = "features"      // negotiated features
	checkJobOpen      = "job-open"      // a job message for a job the session knows
	checkTerminal     = "terminal"      // findings "twice", "after"
	checkCompare      = "compare"       // two numbers of one message
	checkChunks       = "chunks"        // findings "gap", "after-last"
	checkStreamResult = "stream-result" // findings "missing", "unknown", "open", "inline"
	checkAnswers      = "answers"       // an answer names an outstanding request
	checkBound        = "bound"         // a value bounded by the sequence sent
)

var knownChecks = map[string]bool{
	checkSequence: true, checkSession: true, checkFeatures: true, checkJobOpen: true, checkTerminal: true,
	checkCompare: true, checkChunks: true, checkStreamResult: true, checkAnswers: true, checkBound: true,
}

// Effects a message may have (registry.ARCPMessage.Effect).
const (
	effHello     = "hello"
	effWelcome   = "welcome"
	effResume    = "resume"
	effSubmit    = "submit"
	effRefuse    = "refuse"
	effAccept    = "accept"
	effSubscribe = "subscribe"
	effList      = "list"
)

// ruleSet is a table's checked rules, grouped by check.
type ruleSet map[string][]*registry.ARCPRule

// find returns the rule of a check with the given finding, or nil.
func (rs ruleSet) find(check, fnd string) *registry.ARCPRule {
	for _, r := range rs[check] {
		if r.Finding == fnd {
			return r
		}
	}
	return nil
}

// compileRules groups the table's checked rules and refuses a rule the
// interpreter cannot apply or whose name findings cannot carry.
func (s *set) compileRules() error {
	s.rules = ruleSet{}
	for _, r := range s.t.Rules {
		if r.Check == "" {
			continue
		}
		if !knownChecks[r.Check] {
			return fmt.Errorf("rule %s: unknown check %q", r.ID, r.Check)
		}
		if !knownRule(r.ID) {
			return fmt.Errorf("rule %s: not a rule name findings may carry (add it to RuleDocs)", r.ID)
		}
		s.rules[r.Check] = append(s.rules[r.Check], r)
	}
	return s.compilePatterns()
}

// Bounds of the ARCP state (see protocol.Recent).
const (
	maxSessions = 4096
	maxJobs     = 1 << 16
	maxPending  = 4096 // outstanding requests per session and rule
	maxStreams  = 64   // streamed results per job
)

// state follows one ARCP trace: one or more sessions on one or more
// connections, possibly cut at a resume.
type state struct {
	set        *set
	dial, note string

	sessions    *protocol.Recent[*session]
	jobs        *protocol.Recent[*job]
	hello       *hello // the last hello, until a welcome answers it
	welcomed    bool   // a welcome has been seen
	openSubmits int    // submits not yet accepted or refused
	lossy       bool   // a line could not be read
	begun       bool   // the trace's first message has been judged
	partial     protocol.Partial
	deviations  protocol.Once // the deviations reported, by id
	// exercised are the catalogue rows whose check ran on a message of
	// the trace (the rule evaluated it, whether or not it applied).
	exercised *protocol.Exercise
	reg       *registry.Registry

	ids  map[uint64]seenID       // the envelope ids of the connection, by digest of sender, session and id
	keys *protocol.Recent[keyed] // the jobs idempotency keys resolved to

	costRE *regexp.Regexp // the names of metrics that spend a budget

	deviated     bool   // a deviation explains the message being judged
	lastTime     []byte // the last time a message carried, as sent
	lastTimeLine int
	credentials  *protocol.Recent[issued] // the jobs credential values were issued to, by digest
}

// onceNote ends a deviation warning: the first of a trace is reported.
const onceNote = " (Reported at its first occurrence in the trace; later messages with the same deviation are not listed again.)"

// firstDeviation reports whether the deviation id is met for the first
// time in the trace: a deviation an SDK makes in every message of a kind
// is one fact about the SDK, reported once, not a warning per line.
func (s *state) firstDeviation(id string) bool { return s.deviations.First(id) }

// hello is what a hello asked for.
type hello struct {
	offered   map[string]bool // its features, nil if it listed none
	fresh     bool            // not a resume: the session starts in the trace
	line      int             // where it was sent
	principal string          // who speaks, as its credentials say
}

// session is what the trace showed of one session.
type session struct {
	started  bool            // its first welcome answered a fresh hello in the trace
	features map[string]bool // negotiated; nil until a welcome lists them
	last     map[bool]int64  // last event_seq by sending side (true: client)
	high     int64           // highest event_seq seen, across resumes
	sent     bool            // high is known: the trace holds the session's sequence from a known point
	pending  map[string]*protocol.Recent[int]
	asked    map[string]*protocol.Recent[int] // the line of the last request under each key, by rule

	principal string              // the hello's credentials, scoping idempotency keys
	interval  float64             // the heartbeat interval in seconds, 0 if none was negotiated
	agents    map[string][]string // the welcome's inventory: agent → versions
	endedAt   int                 // the line of the message that ended the connection, 0 if none
	owed      map[string]*owed    // requests the other peer owes an answer, by rule
	submits   []submit            // submits not answered yet
	ambiguous bool                // answers can no longer be paired with submits
	pings     *protocol.Recent[ping]
	openPings int

	ackLine  int   // the client's last acknowledgement, 0 if none on this connection
	sinceAck int   // the runtime's events since it
	gapSeq   int64 // the first event_seq after a gap the client has not resumed from, 0 if none
	gapLine  int
}

// job is what the trace showed of one job.
type job struct {
	sessions    map[string]bool // the sessions that accepted or subscribed to it
	opened      map[string]bool // the effects that made it known (accept, subscribe, list)
	terminal    bool
	termSeq     int64
	termHasSeq  bool
	streams     map[string]*stream // by result id
	acceptedNow bool               // accepted in a session that started in the trace

	acceptedIn  map[string]bool // the sessions that accepted it
	subscribers map[string]bool // the sessions that subscribed to it
	cancelFrom  map[string]int  // the line of each session's job.cancel
	cancelled   int             // the line of its job.cancelled, 0 if none
	trace       string          // its trace id
	agent       string          // the agent version it runs (name@version)
	agentLine   int
	lease       *lease          // its effective lease, once an acceptance or subscription stated it
	credIDs     map[string]bool // the credentials its acceptance issued, nil if not seen
}

// stream is one streamed result of a job.
type stream struct {
	next   int64 // the chunk index expected next
	closed bool  // a chunk with more: false was seen
}

func newState(reg *registry.Registry) *state {
	return &state{
		sessions:  protocol.NewRecent[*session](maxSessions),
		jobs:      protocol.NewRecent[*job](maxJobs),
		exercised: protocol.NewExercise(RuleDocs()),
		reg:       reg,
	}
}

// find is the set's rule of a check with the given finding, noted as
// exercised.
func (s *state) find(check, fnd string) *registry.ARCPRule {
	r := s.set.rules.find(check, fnd)
	if r != nil {
		s.exercised.Rule(r.ID)
	}
	return r
}

// each is the set's rules of a check, each noted as exercised.
func (s *state) each(check string) []*registry.ARCPRule {
	rs := s.set.rules[check]
	for _, r := range rs {
		s.exercised.Rule(r.ID)
	}
	return rs
}

// Exercised lists the catalogue rows whose check ran on the trace.
func (s *state) Exercised() []string { return s.exercised.IDs() }

// Catalogue lists the ids of the version's requirement rows.
func (s *state) Catalogue() []string { return s.reg.RequirementIDs(s.set.v) }

// Peers: ARCP names its implementations in hello and welcome, which the
// summary does not show yet.
func (s *state) Peers() []finding.Peer { return nil }

// Lost: an unreadable line may have carried the next event_seq, an
// acceptance, a request or a chunk; the rules that need them stop, and the
// sequences restart from what follows.
func (s *state) Lost(*protocol.Message) {
	s.lossy = true
	for _, k := range s.sessions.Keys() {
		if ss, ok := s.sessions.Get(k); ok {
			ss.last = map[bool]int64{}
		}
	}
}

func (s *state) session(id string) *session {
	ss, _ := s.sessions.Get(id)
	if ss == nil {
		ss = &session{last: map[bool]int64{}, pending: map[string]*protocol.Recent[int]{}, asked: map[string]*protocol.Recent[int]{}}
		s.sessions.Put(id, ss)
	}
	return ss
}

func (s *state) job(id string) *job {
	j, _ := s.jobs.Get(id)
	if j == nil {
		j = &job{opened: map[string]bool{}}
		s.jobs.Put(id, j)
	}
	return j
}

func (s *state) knownSessions() []string { return s.sessions.Keys() }
