package vtcode_test

import (
	"fmt"

	"github.com/agentproto/agentproto/pkg/acp/vtcode"
)

// Decode a server-sent stream update of VT Code's dialect, switch on its
// kind, validate it and encode it again. The line is from
// fixtures/acp-vtcode/valid/01-full-session.jsonl.
func Example() {
	line := `{"session_id":"sess-9f2c41d7","turn_id":"turn-01","update_type":"message_delta","delta":"Let me see where discounts are added to the cart."}`
	u, err := vtcode.UnmarshalSessionUpdateNotification([]byte(line))
	if err != nil {
		fmt.Println("decode:", err)
		return
	}
	fmt.Println("valid:", vtcode.ValidateSessionUpdateNotification(u) == nil)
	switch x := u.(type) {
	case *vtcode.MessageDelta:
		fmt.Printf("%s %s: %s\n", x.SessionID, x.TurnID, x.Delta)
	default:
		fmt.Printf("another update: %T\n", x)
	}
	// The same value, its members in the order of the schema.
	out, err := vtcode.MarshalSessionUpdateNotification(u)
	if err != nil {
		fmt.Println("encode:", err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// valid: true
	// sess-9f2c41d7 turn-01: Let me see where discounts are added to the cart.
	// {"update_type":"message_delta","session_id":"sess-9f2c41d7","turn_id":"turn-01","delta":"Let me see where discounts are added to the cart."}
}
