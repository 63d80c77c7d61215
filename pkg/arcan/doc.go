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
// The generated types (arcan_gen.go) reproduce serde's output byte for byte:
// fields in serde's order, members serde always writes (final_answer,
// state_patch, reason) written as null when empty, members serde skips left
// out, numbers as serde_json formats them, and members or event kinds a
// newer Arcan adds kept as they came. Every type has Validate for the
// schema's constraints (u32 and u64 ranges, enums).
package arcan
