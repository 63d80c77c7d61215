// Package arcan reads and writes the event stream of the Arcan agent runtime.
//
// Arcan's agent loop reports its progress as AgentEvent values: flat JSON
// objects tagged by "part_type" (run_started, iteration_started,
// model_output, text_delta, tool_call_requested, tool_call_completed,
// tool_call_failed, state_patched, context_compacted, approval_requested,
// approval_resolved, run_errored, run_finished). The JSON Schemas in
// schema/arcan/v1 of this repository describe every variant field by field, in
// the order Arcan writes the fields; the Go types for them are generated into
// this package from those schemas.
//
// The events travel in three forms:
//
//   - as Server-Sent Events, one "data: {json}" frame per event, which is what
//     Arcan's daemon streams to clients; [SSEReader] and [SSEWriter] handle
//     that framing;
//   - as JSON Lines, one event per line;
//   - in session-store files, one record per line with the event nested under
//     "event" (schema/arcan/v1/store-record.json).
//
// A typical consumer reads frames with an [SSEReader] and decodes each
// [SSEEvent.Data] as an AgentEvent:
//
//	r := arcan.NewSSEReader(resp.Body)
//	for {
//		ev, err := r.Next()
//		if err == io.EOF {
//			break
//		}
//		if err != nil {
//			if errors.Is(err, arcan.ErrEventTooLarge) {
//				continue // one oversized event was skipped; the stream goes on
//			}
//			return err
//		}
//		event, err := arcan.UnmarshalAgentEvent(ev.Data)
//		if err != nil {
//			return err
//		}
//		switch e := event.(type) {
//		case *arcan.TextDelta: // e.Delta
//		case *arcan.ToolCallRequested: // e.Call.ToolName, e.Call.Input
//		case *arcan.UnknownAgentEvent: // a newer Arcan's event: e.Tag, e.Raw
//		}
//	}
//
// The generated types (arcan_gen.go) decode what Arcan's own reader (serde)
// accepts and nothing more: a member with a serde default or an Option may
// be absent, an Option may be null, and an integer member must be written
// as an integer literal (1.0, 1e2 and -0 are decode errors naming the
// member's JSON pointer, as serde_json rejects them). Decoding then encoding
// gives back the same bytes for everything Arcan writes, and keeps the
// difference between absent, null and a value for everything it accepts:
// such members are wire.Opt values (final_answer, reason, state_patch,
// usage) or pointers and raw JSON that are nil when absent. Fields come out
// in serde's order, numbers as serde_json formats them, and members or event
// kinds a newer Arcan adds are kept as they came.
//
// To write what Arcan writes, set the members it always writes even when
// they say nothing: wire.Null for an unset final_answer, reason or
// state_patch, and the TokenUsage counters, ToolAnnotations flags and
// is_error even when zero. The schemas list them (x-always-emitted); the
// validator warns (rule emit-shape) when one is missing. Every type has
// Validate for the schema's constraints (u32 and u64 ranges, enums).
package arcan
