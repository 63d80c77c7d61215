package model

import "testing"

// Every type's doc comment starts with its name and reads as a sentence.
func TestGoDoc(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"Ping", "Generic liveness probe (RFC-0001-v2 control).", "Ping is a generic liveness probe (RFC-0001-v2 control)."},
		{"PingPayload", "Payload of `ping`.", "PingPayload is the payload of `ping`."},
		{"Envelope", "The envelope of every message.", "Envelope is the envelope of every message."},
		{"Envelope", "Envelope of every message, flat.", "Envelope of every message, flat."},
		{"Cancel", "Asks the runtime to stop a job.", "Cancel asks the runtime to stop a job."},
		{"StreamError", "The stream ended with an error.", "StreamError means the stream ended with an error."},
		{"LeaseRevoked", "A lease was withdrawn before its expiry.", "LeaseRevoked means a lease was withdrawn before its expiry."},
		{"JobSubmit", "Client to runtime: start a job.", "JobSubmit goes from client to runtime: start a job."},
		{"ArtifactPut", "Upload an artifact, inline as base64.", "ArtifactPut asks to upload an artifact, inline as base64."},
		{"ErrorDetails", "Details of the failure.", "ErrorDetails holds the details of the failure."},
		{"PromptCapabilities", "Content block types the agent accepts in prompts.", "PromptCapabilities holds the content block types the agent accepts in prompts."},
		{"ClientIdentity", "Attested identity of the client.", "ClientIdentity is the attested identity of the client."},
		{"CancelNotification", "Sent by the client to stop a turn.", "CancelNotification is sent by the client to stop a turn."},
		{"Reason", "Why the model ended its turn.", "Reason is why the model ended its turn."},
		{"Server", "MCP server to connect to.", "Server is the MCP server to connect to."},
		{"Level", "Log severity.", "Level is a log severity."},
		{"Icon", "An image a client may show for an item.", "Icon is an image a client may show for an item."},
		{"Ack", "Highest event_seq the client processed.", "Ack is the highest event_seq the client processed."},
		{"JobStarted", "The execution of the job began.", "JobStarted means the execution of the job began."},
		{"Credential", "A short-lived credential the runtime minted for one job.", "Credential is a short-lived credential the runtime minted for one job."},
		{"ToolAnnotations", "Hints about how a tool behaves.", "ToolAnnotations holds the hints about how a tool behaves."},
		{"SessionBye", "ARCP v1.0's graceful close.", "SessionBye is ARCP v1.0's graceful close."},
		{"ArchiveSessionRequest", "Archives a session: it disappears from the list.", "ArchiveSessionRequest archives a session: it disappears from the list."},
		{"MCPServerHTTP", "A server reached over HTTP.", "MCPServerHTTP is a server reached over HTTP."},
		{"DiffChangeMove", "A file moved or renamed.", "DiffChangeMove means a file moved or renamed."},
		{"Error", "The error object of a failed response.", "Error is the error object of a failed response."},
		{"LeaseRefresh", "The holder asks to extend a lease.", "LeaseRefresh means the holder asks to extend a lease."},
		{"Envelope", "The envelope every message travels in.", "Envelope is the envelope every message travels in."},
		{"Empty", "", "Empty has no description in its schema."},
		{"Raw", "`null` or an object.", "Raw is `null` or an object."},
	} {
		if got := GoDoc(c.name, c.doc); got != c.want {
			t.Errorf("GoDoc(%q, %q)\n got %q\nwant %q", c.name, c.doc, got, c.want)
		}
	}
}
