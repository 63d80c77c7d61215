package acp

// Obligations that follow a message over its lifetime, each read from an
// effect of the method tables: a request's id, a request cancelled by its
// sender, a file a write may create, a list's cursors, a session's
// terminals, the content every agent accepts and URL-mode elicitations.

import (
	"net"
	"strings"

	"github.com/agentproto/agentproto/internal/jsonscan"
	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// The rows they check.
const (
	reqRequestIDNotNull    = "acp.jsonrpc.request-id-not-null"
	reqCancelRequestAnswer = "acp.cancel-request.answer"
	reqWriteCreates        = "acp.fs.write-creates"
	reqOpaqueCursor        = "acp.list.opaque-cursor"
	reqTerminalRelease     = "acp.terminal.release"
	reqBaselineContent     = "acp.init.baseline-prompt-content"
	reqTextSupported       = "acp.content.text-supported"
	reqElicitationUnique   = "acp.elicitation.unique-id"
	reqElicitationSameConn = "acp.elicitation.complete-same-client"
	reqElicitationSameID   = "acp.elicitation.complete-original-id"
	reqElicitationHTTPS    = "acp.elicitation.url-https"
	reqEndOnMissingCursor  = "acp.list.end-on-missing-cursor"
)

// JSON-RPC and ACP error codes the obligations read.
const (
	codeRequestCancelled = -32800
	codeResourceNotFound = -32002
)

// maxCursors bounds the cursors remembered per connection, maxTerminals
// the unreleased terminals per session and maxElicitations the open
// elicitations per connection.
const (
	maxCursors      = 256
	maxTerminals    = 64
	maxElicitations = 256
)

// obligations is the state the checks of this file keep.
type obligations struct {
	cursors   *protocol.Recent[bool] // cursors the agent's answers gave
	terminals map[string][]terminal  // unreleased terminals by session
	// elicitations are the URL-mode elicitations open, by id, with the
	// line that opened each; opened is set once one was.
	elicitations map[string]int
	opened       bool
	// listEnded is the line of the latest list answer, if it gave no
	// next cursor.
	listEnded int
	// released are the terminals released, by session, each with the
	// line of its release.
	released map[string]map[string]int
}

// terminal is a terminal the client created for the agent.
type terminal struct {
	id     string
	line   int
	killed int // the line of the terminal/kill of its command, 0 if none
}

// requestID warns of a request whose id is null: JSON-RPC allows it, but
// a null id is also what answers an unreadable request, so its answer is
// ambiguous.
func (s *state) requestID(m *protocol.Message, idAt int) {
	s.exercise(reqRequestIDNotNull)
	if m.Doc.Type(idAt) == jsonscan.Null {
		m.Breach(reqRequestIDNotNull, finding.Warning, RuleRequestID, "/id", "a request with a null id: ids are strings or integers, since an answer with a null id is also what answers a request whose id could not be read")
	}
}

// cancelsRequest notes the request of the sender's that a notification
// cancels (effect CancelsRequest): its answer is then held to a result or
// the request-cancelled error.
func (s *state) cancelsRequest(m *protocol.Message, p string) {
	n := m.Doc.Find(p)
	if n < 0 {
		return
	}
	k, ok := s.idKey(m.Dir, m, n)
	if !ok {
		return
	}
	if req, _ := s.pending.GetBytes(k); req != nil {
		req.cancelRequested = m.Line
	}
}

// cancelledAnswer checks the error answer to a request its sender
// cancelled: a result (possibly partial) or -32800, nothing else.
func (s *state) cancelledAnswer(m *protocol.Message, req *request, code int64, hasCode bool) {
	if req.cancelRequested == 0 {
		return
	}
	s.exercise(reqCancelRequestAnswer)
	if hasCode && code != codeRequestCancelled {
		// A warning: an answer the receiver sent before the cancel
		// reached it crosses the cancel on the wire, and a recording
		// cannot tell the two apart.
		m.Breach(reqCancelRequestAnswer, finding.Warning, RuleCancellation, "/error/code", "the request was cancelled with $/cancel_request (line %d), and it was answered with error %d: a receiver that gets the cancel answers the request once, with a result (possibly partial) or with error %d (request cancelled); unless this answer was sent before the cancel arrived and crossed it", req.cancelRequested, code, codeRequestCancelled)
	}
}

// createsFile checks the error answer to a request that may create the
// file it names (effect CreatesFile): "resource not found" is no answer
// to a write.
func (s *state) createsFile(m *protocol.Message, req *request, code int64, hasCode bool) {
	if req.eff == nil || req.eff.Effects.CreatesFile == "" {
		return
	}
	s.exercise(reqWriteCreates)
	if hasCode && code == codeResourceNotFound {
		m.Breach(reqWriteCreates, finding.Error, RuleFileSystem, "/error/code", "the write was answered %d (resource not found): a write to a file that does not exist yet creates it", codeResourceNotFound)
	}
}

// cursorSent checks a paged request's cursor (effect Cursor): it is one
// an answer on this connection gave, sent back as it was.
func (s *state) cursorSent(m *protocol.Message, c *registry.ACPCursor) {
	if c.Sent == "" {
		return
	}
	s.exercise(reqOpaqueCursor)
	cur, ok := m.String(c.Sent)
	if !ok || s.ob.cursors == nil && s.midSession {
		return
	}
	if s.ob.cursors != nil {
		if _, seen := s.ob.cursors.Get(cur); seen || s.ob.cursors.Forgotten(cur) {
			return
		}
	}
	if s.midSession || s.lossy {
		return // the answer that gave it may be before the capture
	}
	if s.ob.listEnded > 0 {
		m.Breach(reqEndOnMissingCursor, finding.Error, RuleListCursor, c.Sent, "cursor %s was given by no answer on this connection, and the last page (line %d) had no nextCursor: an answer without nextCursor ends the listing, and the client asks for no further page of it", protocol.Quote(clip(cur)), s.ob.listEnded)
		return
	}
	m.Breach(reqOpaqueCursor, finding.Error, RuleListCursor, c.Sent, "cursor %s was given by no answer on this connection: a cursor is opaque, sent back exactly as an answer's nextCursor gave it, never built, edited or kept from another connection", protocol.Quote(clip(cur)))
}

// cursorGiven notes the next cursor an answer gives.
func (s *state) cursorGiven(m *protocol.Message, c *registry.ACPCursor) {
	if c.Next == "" {
		return
	}
	s.ob.listEnded = 0
	if !m.Has(c.Next) {
		s.exercise(reqEndOnMissingCursor)
		s.ob.listEnded = m.Line
	}
	if cur, ok := m.String(c.Next); ok {
		if s.ob.cursors == nil {
			s.ob.cursors = protocol.NewRecent[bool](maxCursors)
		}
		s.ob.cursors.Put(cur, true)
	}
}

// terminalCreated notes a terminal an answer created, on the session of
// its request.
func (s *state) terminalCreated(m *protocol.Message, req *request, t *registry.ACPTerminal) {
	if t.Creates == "" || req.sid == "" {
		return
	}
	id, ok := m.String(t.Creates)
	if !ok {
		return
	}
	if s.ob.terminals == nil {
		s.ob.terminals = map[string][]terminal{}
	}
	if list := s.ob.terminals[req.sid]; len(list) < maxTerminals {
		s.ob.terminals[req.sid] = append(list, terminal{id: id, line: m.Line})
	}
}

// terminalReleased forgets a terminal a request releases.
func (s *state) terminalReleased(m *protocol.Message, ef *registry.ACPEffects) {
	t := ef.Terminal
	if t == nil || t.Releases == "" || ef.Session == "" {
		return
	}
	sid, ok := m.String(ef.Session)
	id, ok2 := m.String(t.Releases)
	if !ok || !ok2 {
		return
	}
	list := s.ob.terminals[sid]
	for i, x := range list {
		if x.id == id {
			s.ob.terminals[sid] = append(list[:i], list[i+1:]...)
			break
		}
	}
	s.released(sid, id, m.Line)
}

// sessionClosed checks, at the answer that closes a session, that the
// agent released every terminal it created for it.
func (s *state) sessionClosed(m *protocol.Message, sid string) {
	s.exercise(reqTerminalRelease)
	list := s.ob.terminals[sid]
	if len(list) == 0 {
		return
	}
	delete(s.ob.terminals, sid)
	if k := list[0].killed; k > 0 {
		m.Breach(reqReleaseAfterKill, finding.Error, RuleTerminalLifecycle, "/result", "session %s is closed, and terminal %s (created on line %d) was never released: its command was killed (line %d), but killing does not release a terminal, and the agent still sends terminal/release for it", protocol.Quote(clip(sid)), protocol.Quote(clip(list[0].id)), list[0].line, k)
		return
	}
	m.Breach(reqTerminalRelease, finding.Error, RuleTerminalLifecycle, "/result", "session %s is closed, and terminal %s (created on line %d) was never released: the agent releases every terminal it creates with terminal/release, at the latest before the session is closed", protocol.Quote(clip(sid)), protocol.Quote(clip(list[0].id)), list[0].line)
}

// baselineContent notes, on a request whose content every agent accepts
// (effect BaselineContent), which baseline it is.
func (s *state) baselineContent(m *protocol.Message, req *request, b *registry.ACPTagSet) {
	kind, n := "text", 0
	eachString(m, b.At, func(v []byte, _ func() string) {
		switch {
		case kind == "":
		case !b.Has(string(v)):
			kind = ""
		case string(v) != "text":
			kind = "baseline"
		}
		n++
	})
	if kind == "" || n == 0 {
		return
	}
	// Only a request its schema takes: invalid params are the answer to
	// one it does not. (Prompts are few; the check is once per prompt.)
	if sch := req.eff.params; sch != nil && !sch.Valid(m.At("/params")) {
		return
	}
	req.baseline = kind
}

// refusedBaseline checks the error answer to a request whose content
// every agent accepts: "invalid params" refuses what no agent may refuse.
func (s *state) refusedBaseline(m *protocol.Message, req *request, code int64, hasCode bool) {
	if req.baseline == "" {
		return
	}
	row := reqBaselineContent
	if req.baseline == "text" {
		row = reqTextSupported
	}
	s.exercise(row)
	if hasCode && code == codeInvalidParams {
		m.Breach(row, finding.Error, RuleBaselineContent, "/error/code", "the agent refused the request on line %d as invalid params (%d), but its content is only of types every agent accepts whatever its prompt capabilities say (%s)", req.line, codeInvalidParams, quoteList(req.eff.Effects.BaselineContent.Values))
	}
}

// elicitation follows URL-mode elicitations (effect Elicitation): an id
// is not reused while its elicitation is open, a completion names an open
// one, and the URL is https.
func (s *state) elicitation(m *protocol.Message, e *registry.ACPElicitation, cs []cond) {
	switch {
	case e.Opens != "" && !when(m, cs):
	case e.Opens != "":
		id, ok := m.String(e.Opens)
		if !ok {
			return
		}
		s.exercise(reqElicitationUnique)
		if line, open := s.ob.elicitations[id]; open {
			m.Breach(reqElicitationUnique, finding.Error, RuleElicitation, e.Opens, "elicitation %s is already open (line %d, not completed): two URL-mode elicitations open at once on one connection never share an id", protocol.Quote(clip(id)), line)
		} else if len(s.ob.elicitations) < maxElicitations {
			if s.ob.elicitations == nil {
				s.ob.elicitations = map[string]int{}
			}
			s.ob.elicitations[id] = m.Line
		}
		s.ob.opened = true
		if u, ok := m.String(e.URL); ok && e.URL != "" {
			s.urlSecrets(m, e.URL, u)
			s.exercise(reqElicitationHTTPS)
			if insecureURL(u) {
				m.Breach(reqElicitationHTTPS, finding.Warning, RuleElicitation, e.URL, "the elicitation's URL is not https: outside a development setup (localhost) the user is sent to an https address, which the browser can authenticate")
			}
		}
	case e.Completes != "":
		id, ok := m.String(e.Completes)
		if !ok || s.midSession || s.lossy {
			return
		}
		s.exercise(reqElicitationSameConn)
		s.exercise(reqElicitationSameID)
		if _, open := s.ob.elicitations[id]; open {
			delete(s.ob.elicitations, id)
			return
		}
		if !s.ob.opened {
			m.Breach(reqElicitationSameConn, finding.Error, RuleElicitation, e.Completes, "elicitation/complete for %s, but no URL-mode elicitation was opened on this connection: the agent completes an elicitation only on the connection whose client it sent it to", protocol.Quote(clip(id)))
			return
		}
		m.Breach(reqElicitationSameID, finding.Error, RuleElicitation, e.Completes, "elicitation/complete for %s, which no open elicitation has: a completion carries the elicitationId of the URL-mode request it reports on, unchanged", protocol.Quote(clip(id)))
	}
}

// insecureURL reports whether u is a plain http URL to a host other than
// the local machine.
func insecureURL(u string) bool {
	rest, ok := cutPrefixFold(u, "http://")
	if !ok {
		return false
	}
	host := rest
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return false
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return false
	}
	return true
}

// cutPrefixFold is strings.CutPrefix, ASCII case folded.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}
