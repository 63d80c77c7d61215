package acp

import (
	"slices"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/pkg/validate/finding"
	"github.com/agentproto/agentproto/pkg/validate/protocol"
	"github.com/agentproto/agentproto/schema/registry"
)

// ACP's rule names. They are a contract: fixtures' .expect files, the JSON
// output and configuration files name them.
const (
	RuleNotInitialized     = "not-initialized"     // a message before initialize
	RuleUnansweredResponse = "unanswered-response" // a response to no outstanding request
	RuleDuplicateResponse  = "duplicate-response"  // a second response to one request
	RuleUnknownSession     = "unknown-session"     // a session id nothing introduced
	RuleUnknownToolCall    = "unknown-tool-call"   // an update of a tool call never announced
	RulePermissionOption   = "permission-option"   // a permission answer that chose an option not offered
	RuleCapability         = "capability"          // a call or an offer the other side's capabilities do not permit
	RuleDirection          = "direction"           // a method sent by the side that handles it
	RuleUnknownMethod      = "unknown-method"      // a method the version does not define
	RuleCancellation       = "cancellation"        // a cancelled turn not ended as the spec says
	RuleHistoryReplay      = "history-replay"      // load or resume replaying the history at the wrong time
	RuleVersion            = "version-negotiation" // initialize answered with no version or one that does not exist
	RuleDuplicateSession   = "duplicate-session"   // a new session with an id already in use
	RuleNotificationAnswer = "notification-answer" // a response to a notification
	RuleMethodNotFound     = "method-not-found"    // an unknown or advertised method answered with the wrong error
	RuleConfigOptions      = "config-options"      // a config option answer that is not the complete list
	RuleUnansweredRequest  = "unanswered-request"  // a request never answered before the trace ends (a warning)
	RuleAbsolutePath       = "absolute-path"       // a relative file-system path
	RuleOpenValue          = "open-value"          // a value of one's own in an open set, without "_"
	RuleRequestID          = "request-id"          // a request with a null id (a warning)
	RuleFileSystem         = "file-system"         // a file-system request answered as the spec does not allow
	RuleListCursor         = "list-cursor"         // a list cursor no answer gave
	RuleTerminalLifecycle  = "terminal-lifecycle"  // a terminal not released before its session closes
	RuleBaselineContent    = "baseline-content"    // a prompt of baseline content refused as invalid
	RuleElicitation        = "elicitation"         // a URL-mode elicitation's id reused, completed unknown, or not https
)

// Requirement ids this package's checks name, beyond those in ruleDocs'
// first places.
const (
	reqSchema             = "acp.schema.shape"
	reqUTF8               = "acp.transport.utf8"
	reqAgentStdout        = "acp.transport.agent-stdout-only-acp"
	reqClientStdin        = "acp.transport.client-stdin-only-acp"
	reqInitFirst          = "acp.init.first"
	reqAgentVersion       = "acp.init.agent-version"
	reqAgreeVersion       = "acp.init.agree-version"
	reqOmitted            = "acp.init.omitted-unsupported"
	reqAnswerOnce         = "acp.jsonrpc.answer-once"
	reqAnswerKnownID      = "acp.jsonrpc.answer-known-id"
	reqNoNotifAnswer      = "acp.jsonrpc.no-answer-to-notification"
	reqNullID             = "acp.jsonrpc.null-id-only-unreadable"
	reqMethodPrefix       = "acp.ext.method-prefix"
	reqAnswerCustom       = "acp.ext.answer-custom-request"
	reqSessionKnown       = "acp.session.known-id"
	reqUniqueSession      = "acp.session.unique-id"
	reqLoadReplay         = "acp.session.load-replay-first"
	reqResumeNoReplay     = "acp.session.resume-no-replay"
	reqToolCallKnown      = "acp.tool-call.announced"
	reqOfferedOption      = "acp.permission.offered-option"
	reqMethodSide         = "acp.jsonrpc.method-side"
	reqCancelledReason    = "acp.prompt.cancelled-stop-reason"
	reqUpdatesBefore      = "acp.prompt.updates-before-response"
	reqPermissionCancel   = "acp.prompt.permission-cancelled"
	reqConfigComplete     = "acp.config.complete-list"
	reqAuthNoTerminal     = "acp.auth.no-terminal-authenticate"
	reqAdvertisedWorks    = "acp.cap.advertised-method-answers"
	reqAuthTerminalGated  = "acp.auth.terminal-gated"
	reqConfigBoolGated    = "acp.config.boolean-gated"
	reqNoRootFields       = "acp.ext.no-root-fields"
	reqPathsAbsolute      = "acp.paths.absolute"
	reqCwdAbsolute        = "acp.session.cwd-absolute"
	reqAdditionalAbsolute = "acp.session.additional-directories-absolute"
	reqBaselineMethods    = "acp.init.baseline-session-methods"
	reqFallbackVersion    = "acp.init.agent-fallback-version"
)

// restated maps a row to the rows that state the same requirement again
// elsewhere in the spec (a capability check before a call, a permission
// answered cancelled in two docs): what exercises the one exercises the
// others, and the rule that checks the one checks them.
var restated = map[string][]string{
	"acp.fs.read-gated":        {"acp.fs.check-support"},
	"acp.fs.write-gated":       {"acp.fs.check-support"},
	"acp.terminal.gated":       {"acp.terminal.check-support"},
	"acp.session.load-gated":   {"acp.session.load-check-support"},
	"acp.session.resume-gated": {"acp.session.resume-check-support"},
	"acp.session.close-gated":  {"acp.session.close-check-support"},
	"acp.session.delete-gated": {"acp.delete.check-support"},
	"acp.session.list-gated":   {"acp.list.check-support"},
	reqInitFirst:               {"acp.session.new-after-init"},
	reqPermissionCancel:        {"acp.permission.cancelled-outcome"},
	reqToolCallKnown:           {"acp.tool-call.report"},
	reqCancelledReason:         {"acp.session.close-cancels"},
	reqPathsAbsolute:           {reqCwdAbsolute, reqAdditionalAbsolute},
	reqCwdAbsolute:             {reqPathsAbsolute},
	reqAdditionalAbsolute:      {reqPathsAbsolute},
	reqSchema:                  {"acp.jsonrpc.version", "acp.jsonrpc.result-or-error", "acp.jsonrpc.request-id-integer"},
	reqAuthNoTerminal:          {reqTerminalNoAuth},
	reqNoNotifAnswer:           {reqIgnoreUnknown},
	reqPreferConfig:            {reqUseConfig},
	reqContentConforms:         {reqClientValidate},
	reqSensitiveURL:            {reqFormNoSecrets},
	reqNoFormFallback:          {reqFormNoSecrets},
	"acp.init.client-info":     {"acp.init.implementation-info"},
	"acp.init.agent-info":      {"acp.init.implementation-info"},
}

// withRestated returns ids and the rows that restate them.
func withRestated(ids ...string) []string {
	out := append([]string(nil), ids...)
	for _, id := range ids {
		for _, a := range restated[id] {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// gateRows names the catalogue row of each capability gate: what a side
// must not call or offer unless the other side advertised it.
var gateRows = map[string]string{
	"/clientCapabilities/fs/readTextFile":                          "acp.fs.read-gated",
	"/clientCapabilities/fs/writeTextFile":                         "acp.fs.write-gated",
	"/clientCapabilities/terminal":                                 "acp.terminal.gated",
	"/clientCapabilities/elicitation":                              "acp.elicitation.mode-gated",
	"/clientCapabilities/elicitation/url":                          "acp.elicitation.mode-gated",
	"/clientCapabilities/elicitation/form":                         "acp.elicitation.mode-gated",
	"/clientCapabilities/auth/terminal":                            reqAuthTerminalGated,
	"/clientCapabilities/session/configOptions/boolean":            reqConfigBoolGated,
	"/agentCapabilities/loadSession":                               "acp.session.load-gated",
	"/agentCapabilities/sessionCapabilities/list":                  "acp.session.list-gated",
	"/agentCapabilities/sessionCapabilities/delete":                "acp.session.delete-gated",
	"/agentCapabilities/sessionCapabilities/resume":                "acp.session.resume-gated",
	"/agentCapabilities/sessionCapabilities/close":                 "acp.session.close-gated",
	"/agentCapabilities/auth/logout":                               "acp.auth.logout-gated",
	"/agentCapabilities/sessionCapabilities/additionalDirectories": "acp.session.additional-directories-gated",
}

// gateRow is the row of a capability gate, or the general one: what a
// side did not advertise it does not support.
func gateRow(capability string) string {
	if id, ok := gateRows[capability]; ok {
		return id
	}
	if id, ok := v2GateRow(capability); ok {
		return id
	}
	switch {
	case strings.HasPrefix(capability, "/clientCapabilities/elicitation/"):
		return "acp.elicitation.mode-gated"
	case strings.HasPrefix(capability, "/agentCapabilities/promptCapabilities/"):
		return "acp.prompt.content-gated"
	case strings.HasPrefix(capability, "/agentCapabilities/mcpCapabilities/"):
		return "acp.mcp.transport-gated"
	}
	return reqOmitted
}

// effectVersions are the versions whose method tables carry the effects of
// turns, replays and config lists that some rules read.
var effectVersions = []string{"v1", "v1-unstable"}

// RuleDocs lists ACP's rules with the rows each checks (the first is the
// one a finding names when its check names none), and the rows the
// engine's rules stand for in ACP.
func RuleDocs() []protocol.RuleDoc {
	gates := []string{reqOmitted, "acp.prompt.content-gated", "acp.mcp.transport-gated"}
	seen := map[string]bool{reqOmitted: true, "acp.prompt.content-gated": true, "acp.mcp.transport-gated": true}
	for _, cap := range sortedKeys(gateRows) {
		if id := gateRows[cap]; !seen[id] {
			seen[id] = true
			gates = append(gates, id)
		}
	}
	return append([]protocol.RuleDoc{
		{Name: finding.RuleSchema, Summary: "a message does not match its method's schema", Requirements: []string{reqSchema}},
		// What the v1 schemas enforce that the catalogue also states.
		{Name: finding.RuleSchema, Summary: "a message does not match its method's schema", Requirements: withRestated(reqSchema, "acp.init.agent-answer", "acp.session.load-params", "acp.session.close-params", "acp.list.answer-sessions", "acp.prompt.stop-reason", "acp.config.default-value"), Versions: effectVersions},
		{Name: finding.RuleSchema, Summary: "an initialize message without the info that describes its sender, which v2's schema requires", Requirements: []string{"acp.init.client-info", "acp.init.agent-info", "acp.init.implementation-info"}, Versions: stateVersions},
		{Name: finding.RuleJSON, Summary: "a line is not a JSON-RPC message: not JSON, not UTF-8, or log output on the wire", Requirements: []string{reqAgentStdout, reqClientStdin, reqUTF8, "acp.transport.no-embedded-newline"}},
		{Name: RuleNotInitialized, Summary: "a message before initialize", Requirements: withRestated(reqInitFirst)},
		{Name: RuleNotInitialized, Summary: "session/list or session/delete before initialize is answered", Requirements: []string{"acp.list.after-init", "acp.delete.after-init"}, Versions: effectVersions},
		{Name: RuleUnansweredResponse, Summary: "a response whose id answers no outstanding request", Requirements: []string{reqAnswerKnownID}},
		{Name: RuleDuplicateResponse, Summary: "a second response to one request", Requirements: []string{reqAnswerOnce}},
		{Name: RuleUnansweredRequest, Summary: "a request never answered before the trace ends (a warning: the trace may have been cut short)", Requirements: []string{reqAnswerOnce}},
		{Name: RuleUnknownSession, Summary: "a session id that nothing in the trace introduced", Requirements: []string{reqSessionKnown}},
		{Name: RuleUnknownToolCall, Summary: "an update of a tool call that was never announced", Requirements: []string{reqToolCallKnown}},
		{Name: RuleUnknownToolCall, Summary: "an update of a tool call that was never announced", Requirements: withRestated(reqToolCallKnown), Versions: effectVersions},
		{Name: RulePermissionOption, Summary: "a permission answer that chose an option the request did not offer", Requirements: []string{reqOfferedOption}},
		{Name: RuleCapability, Summary: "a call, or an offer, that the other side's capabilities do not permit", Requirements: []string{reqOmitted}},
		// The rows of each capability, named where the tables' pointers
		// are v1's.
		{Name: RuleCapability, Summary: "a call, or an offer, that the other side's capabilities do not permit", Requirements: withRestated(append(gates, reqAuthNoTerminal)...), Versions: effectVersions},
		{Name: RuleDirection, Summary: "a method sent by the side that handles it", Requirements: []string{reqMethodSide}},
		{Name: RuleUnknownMethod, Summary: "a method no ACP version defines, without the \"_\" of an extension", Requirements: []string{reqMethodPrefix}},
		{Name: RuleCancellation, Summary: "a cancelled turn that does not end with stopReason \"cancelled\", updates after its answer, or a permission request not answered \"cancelled\"", Requirements: withRestated(reqCancelledReason, reqUpdatesBefore, reqPermissionCancel, reqCancelNoError), Versions: effectVersions},
		{Name: RuleCancellation, Summary: "cancelled work not reported idle with stopReason \"cancelled\", or a permission request not answered \"cancelled\"", Requirements: []string{reqCancelledReason, reqCancelNoError, reqPermissionCancel}, Versions: stateVersions},
		{Name: RuleTurnState, Summary: "a session's reported states out of order: idle with a stop reason but no running work before it, work that ends without a stop reason or with one of one's own that lacks \"_\", a user message reported under another id than the prompt's answer named, work never reported idle again", Requirements: []string{reqRunningBeforeIdle, reqStopReason, reqCustomStopReason, reqUserMessageEcho, reqIdleWhenReady}, Versions: stateVersions},
		{Name: RuleHistoryReplay, Summary: "session/load replaying history after its answer, or session/resume replaying it at all", Requirements: []string{reqLoadReplay, reqResumeNoReplay}, Versions: effectVersions},
		{Name: RuleHistoryReplay, Summary: "session/resume replaying history after its answer when asked for it, or at all when not", Requirements: []string{reqResumeNoReplay, "acp.session.resume-replay-first"}, Versions: stateVersions},
		{Name: RuleVersion, Summary: "initialize answered with an error, or with a protocol version that does not exist", Requirements: []string{reqAgentVersion, reqFallbackVersion}},
		{Name: RuleVersion, Summary: "initialize answered with version 1's number and another version's body", Requirements: []string{reqAgreeVersion}, Versions: effectVersions},
		{Name: RuleUnknownMethod, Summary: "a method only an older version has (one v2 removed) on a connection that negotiated v2", Requirements: []string{reqAgreeVersion}, Versions: stateVersions},
		{Name: RuleDuplicateSession, Summary: "a new session whose id is already in use", Requirements: []string{reqUniqueSession}},
		{Name: RuleNotificationAnswer, Summary: "a response with a null id where no message was unreadable: it answers a notification or nothing", Requirements: withRestated(reqNullID, reqNoNotifAnswer)},
		// In v2 an answer to a notification inside a batch is one too.
		{Name: RuleNotificationAnswer, Summary: "a response with a null id where no message was unreadable: it answers a notification (alone or inside a batch) or nothing", Requirements: []string{reqNoNotifAnswer, reqBatchNoNotifResponse}, Versions: stateVersions},
		{Name: RuleBatch, Summary: "a JSON-RPC batch that breaks the batch rules: an empty batch, an empty array answering notifications, an array answering an empty batch; and, as warnings, a lifecycle-sensitive message inside a batch, answers to a batch's requests on lines of their own, an array of answers that lacks a request's answer or an invalid entry's error", Requirements: []string{reqBatchNonEmpty, reqBatchNoEmptyResponse, reqBatchEmptySingle, reqBatchNoLifecycle, reqBatchResponseArray, reqBatchAnswerEach, reqBatchInvalidEntry}, Versions: stateVersions},
		{Name: RuleMethodNotFound, Summary: "an unknown method not answered \"method not found\" (-32601), or an advertised or baseline one answered with it", Requirements: []string{reqAnswerCustom, reqAdvertisedWorks}},
		{Name: RuleMethodNotFound, Summary: "an unknown method not answered \"method not found\" (-32601), or an advertised or baseline one answered with it", Requirements: []string{reqAnswerCustom, reqAdvertisedWorks, reqBaselineMethods}, Versions: effectVersions},
		{Name: RuleOpenValue, Summary: "a value an open set of the version does not define (a union tag, an auth method type) without the \"_\" of one's own", Requirements: []string{"acp.ext.enum-underscore", "acp.auth.custom-type-prefix"}, Versions: stateVersions},
		{Name: RuleAbsolutePath, Summary: "a file-system path that is not absolute", Requirements: withRestated(reqPathsAbsolute), Versions: effectVersions},
		{Name: RuleAbsolutePath, Summary: "a session's working directory or extra roots that are not absolute", Requirements: []string{reqCwdAbsolute, reqAdditionalAbsolute}, Versions: stateVersions},
		{Name: finding.RuleCustomMember, Summary: "a member the message's type does not define, where the spec reserves every name (custom data goes in _meta)", Requirements: []string{reqNoRootFields}},
		{Name: RuleRequestID, Summary: "a request whose id is null", Requirements: []string{reqRequestIDNotNull}, Versions: effectVersions},
		{Name: RuleCancellation, Summary: "a request cancelled with $/cancel_request answered with an error other than -32800", Requirements: []string{reqCancelRequestAnswer}},
		{Name: RuleFileSystem, Summary: "a write to a file that does not exist yet answered \"resource not found\"", Requirements: []string{reqWriteCreates}, Versions: effectVersions},
		{Name: RuleListCursor, Summary: "a list cursor that no answer on the connection gave", Requirements: []string{reqOpaqueCursor, reqEndOnMissingCursor}},
		{Name: RuleBaselineContent, Summary: "a prompt of only the content every agent accepts (text, resource_link) refused as invalid params", Requirements: []string{reqBaselineContent, reqTextSupported}, Versions: effectVersions},
		{Name: RuleElicitation, Summary: "a URL-mode elicitation whose id is reused while open, a completion of none open, or a URL that is not https", Requirements: []string{reqElicitationUnique, reqElicitationSameConn, reqElicitationSameID, reqElicitationHTTPS}},
		{Name: RuleTerminalLifecycle, Summary: "a session closed while a terminal the agent created for it is unreleased, killed or not", Requirements: []string{reqTerminalRelease, reqReleaseAfterKill, reqTerminalReleased}, Versions: effectVersions},
		{Name: RuleElicitation, Summary: "a form-mode elicitation that seems to ask for a secret or shows a link, an elicitation URL that carries a credential, or a form accepted with values that do not fit it (warnings: each is judged)", Requirements: withRestated(reqSensitiveURL, reqNoFormFallback, reqFormNoURLs, reqURLNoSecrets, reqContentConforms), Versions: effectVersions},
		{Name: RuleExpectedMember, Summary: "a member the spec's text asks for where the schema leaves it optional: session/resume's mcpServers, and (warnings) the initialize info and capabilities", Requirements: withRestated("acp.session.resume-params", "acp.init.client-info", "acp.init.agent-info", "acp.init.client-declare-capabilities", "acp.init.agent-declare-capabilities"), Versions: effectVersions},
		{Name: RuleSessionSetup, Summary: "a prompt for a session this connection did not set up, or a session request refused for the stdio MCP server every agent supports", Requirements: []string{reqAfterSetup, "acp.mcp.stdio-supported", reqSameCwd}, Versions: effectVersions},
		{Name: RuleRoots, Summary: "a file-system request for a path outside its session's roots (a warning)", Requirements: []string{reqRootBoundary}, Versions: effectVersions},
		{Name: RuleToolProgress, Summary: "a tool call reported completed without having been reported in progress (a warning)", Requirements: []string{reqReportInProgress}, Versions: effectVersions},
		{Name: RuleCancellation, Summary: "a new tool call, file-system or terminal request or permission request after the client cancelled the turn (a warning)", Requirements: []string{reqCancelStopTools}, Versions: effectVersions},
		{Name: RuleModes, Summary: "modes and config options not offered both ways or out of step, or session/set_mode used on a session that offers config options (warnings)", Requirements: withRestated(reqSendBoth, reqModesInSync, reqPreferConfig), Versions: effectVersions},
		{Name: RuleIDs, Summary: "a request id reused while its request is pending, a tool call announced twice, or an option id offered twice in one request (warnings)", Requirements: []string{reqUniquePendingID, reqToolCallUnique, reqOptionUnique}, Versions: effectVersions},
		{Name: RuleSettings, Summary: "a mode, a config option value or an auth method that the agent did not offer (warnings)", Requirements: []string{reqModeAvailable, reqConfigValue, reqAuthAdvertised}, Versions: effectVersions},
		{Name: RuleNotFound, Summary: "a session list with no match, or a delete of a session that is gone, answered \"resource not found\" (-32002) instead of a result", Requirements: []string{"acp.list.empty-array", "acp.delete.idempotent"}, Versions: effectVersions},
		// The same checks, at v2's pointers.
		{Name: RuleElicitation, Summary: "a form elicitation that seems to ask for a secret or shows a link, an elicitation URL that carries a credential, or a form accepted with values that do not fit it (warnings: each is judged)", Requirements: withRestated(reqSensitiveURL, reqNoFormFallback, reqFormNoURLs, reqURLNoSecrets, reqContentConforms), Versions: stateVersions},
		{Name: RuleExpectedMember, Summary: "an initialize answer without the agent's capabilities (a warning)", Requirements: []string{"acp.init.agent-declare-capabilities"}, Versions: stateVersions},
		{Name: RuleSessionSetup, Summary: "a prompt for a session this connection did not set up", Requirements: []string{reqAfterSetup}, Versions: stateVersions},
		{Name: RuleRoots, Summary: "a tool call's location outside its session's roots (a warning)", Requirements: []string{reqRootBoundary}, Versions: stateVersions},
		{Name: RuleToolProgress, Summary: "a tool call reported completed without having been reported in progress (a warning)", Requirements: []string{reqReportInProgress}, Versions: stateVersions},
		{Name: RuleCancellation, Summary: "a new tool call or permission request after the client cancelled the work (a warning)", Requirements: []string{reqCancelStopTools}, Versions: stateVersions},
		{Name: finding.RuleCustomMember, Summary: "a member beside the defined capabilities, where support for an extension is announced in the capability object's _meta", Requirements: []string{reqAdvertiseInMeta}, Versions: stateVersions},
		{Name: finding.RuleSchema, Summary: "a session/resume without the cwd that v2's schema requires", Requirements: []string{"acp.session.resume-params"}, Versions: stateVersions},
		{Name: RuleTraceContext, Summary: "a _meta traceparent, tracestate or baggage that is not W3C Trace Context (a warning)", Requirements: []string{reqTraceKeys}},
		{Name: RuleExtensions, Summary: "a custom method served by a side whose capabilities advertise no extension in _meta (a warning)", Requirements: []string{reqAdvertiseCustom}},
		{Name: RuleUnsupported, Summary: "a client that goes on after the agent answered a protocol version it does not implement (a warning)", Requirements: []string{reqClientClose}},
		{Name: finding.RuleCustomMember, Summary: "a member beside the defined capabilities, where support for an extension is announced in the capability object's _meta", Requirements: []string{reqAdvertiseInMeta}, Versions: effectVersions},
		{Name: RuleConfigOptions, Summary: "an answer to session/set_config_option that does not list every option", Requirements: []string{reqConfigComplete}, Versions: effectVersions},
	}, append(v2RuleDocs(), ruleTexts()...)...)
}

// RuleDocs is the package's RuleDocs.
func (*Rules) RuleDocs() []protocol.RuleDoc { return RuleDocs() }

// Blame names the row a finding on m shows broken, where its check named
// none: the rule's first row, or for a line that is not JSON, the row of
// the side that wrote it.
func (*Rules) Blame(f *finding.Finding, m *protocol.Message) {
	if f.Side == "" {
		f.Side = sideOf(m.Dir)
	}
	switch f.Rule {
	case finding.RuleJSON:
		switch {
		case strings.Contains(f.Message, "UTF-8"):
			f.Requirement = reqUTF8
		case f.Side == sideClient:
			f.Requirement = reqClientStdin
		default:
			f.Requirement = reqAgentStdout
		}
		return
	case finding.RuleSchema:
		f.Requirement = reqSchema
		return
	}
	if f.Severity == finding.Warning && f.Rule == RuleUnknownMethod {
		return // a method of another version: advice, not a breach
	}
	for _, d := range ruleDocList {
		if d.Name == f.Rule {
			f.Requirement = d.Requirements[0]
			return
		}
	}
}

// ruleDocList is RuleDocs, made once per process for Blame's look-ups; it
// is never written after.
var ruleDocList = RuleDocs()

// Sides of ACP.
const (
	sideClient = "client"
	sideAgent  = "agent"
)

// sideOf names the sender of a message that goes in direction dir.
func sideOf(dir string) string {
	switch dir {
	case c2a:
		return sideClient
	case a2c:
		return sideAgent
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// exercise notes that the trace reached the situation of a requirement,
// and of the rows that restate it.
//
// Most calls note a row noted before, on every message of a kind: such a
// call is answered by the small cache of rows noted (a string comparison,
// which for the same constant compares one pointer), not by the set.
func (s *state) exercise(id string) {
	if id != "" {
		slot := &s.noted[(len(id)*7+int(id[len(id)-1]))%len(s.noted)]
		if *slot == id {
			return
		}
		*slot = id
	}
	if s.exercised == nil {
		s.exercised = protocol.NewExercise(nil)
	}
	if s.exercised.Row(id) {
		return
	}
	for _, a := range restated[id] {
		s.exercised.Row(a)
	}
}

// Exercised lists the requirements whose situation the trace reached.
func (s *state) Exercised() []string {
	if s.exercised == nil {
		return nil
	}
	return s.exercised.IDs()
}

// Catalogue lists the ids of the requirement rows of the version the trace
// is read as, with its extensions'.
func (s *state) Catalogue() []string {
	var ext []*registry.Version
	for _, x := range s.ext {
		ext = append(ext, x.v)
	}
	return s.reg.RequirementIDs(s.t.v, ext...)
}
