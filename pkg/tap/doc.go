// Package tap runs an agent as a child process and relays a client's stdio
// to it byte for byte, recording the conversation as it flows.
//
// The client (an editor) writes to the relay's standard input and reads its
// standard output; Run starts the agent, copies each chunk on to the other
// side as soon as it is read, and, before it passes the chunk on, writes the
// lines the chunk completes to the recording (a JSON Lines trace plus its
// direction sidecar, one "c2a" or "a2c" per line) and hands them to an
// Observer. Recording before forwarding keeps the recording in causal order:
// an answer can never be recorded before the request that caused it, because
// the agent cannot have read the request before it was recorded.
//
// The relay adds no buffering beyond one read: a chunk is forwarded whole,
// whether or not it ends a line. The child's standard error is passed
// through, end of input on either side is passed on, signals given to Run are
// forwarded, and the child's exit status is reported. Live validation
// (Live) is one Observer: it feeds the validation engine from a bounded
// queue, so a validator that falls behind never slows the relay.
//
// NewWSRelay and NewHTTPRelay relay a network server instead (an ARCP
// runtime over WebSocket, an Arcan daemon's Server-Sent Events over HTTP),
// recording each connection or event stream; given a RelayCheck, they check
// each as it flows with a Live of its own, named after its recording.
//
// Replay plays the client side of a recorded ACP session against an agent
// under test: the recorded client messages in order, the agent's requests
// answered as the recording answered them, the agent's own ids (sessions,
// terminals) put in place of the recorded ones, and the shape of what the
// agent says (kinds, methods, error codes, update variants) compared with
// the recording's.
package tap
