package acp

import (
	"testing"

	"github.com/agentproto/agentproto/schema/registry"
)

func TestAgentsCapability(t *testing.T) {
	for _, tc := range []struct {
		at, capability, handler string
		want                    bool
	}{
		{"/params/prompt/*", "/capabilities/session/prompt/image", registry.HandlerAgent, true},
		{"/result/configOptions/*", "/capabilities/session/configOptions/boolean", registry.HandlerAgent, false},
		{"/params", "/capabilities/elicitation/form", registry.HandlerClient, false},
		{"/params/mcpServers/*", "/agentCapabilities/mcpCapabilities/http", registry.HandlerAgent, true},
		{"/result/authMethods/*", "/clientCapabilities/auth/terminal", registry.HandlerAgent, false},
	} {
		ad := &registry.ACPAdvertisement{At: tc.at, Capability: tc.capability}
		if got := agentsCapability(ad, tc.handler); got != tc.want {
			t.Errorf("%s at %s (handler %s): agent's = %v, want %v", tc.capability, tc.at, tc.handler, got, tc.want)
		}
	}
}

func TestAdvertised(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{nil, false}, {[]any{}, false}, {[]any{map[string]any{}}, true},
		{map[string]any{}, true}, {true, true}, {false, false}, {"yes", false},
	} {
		if got := advertised(tc.v); got != tc.want {
			t.Errorf("advertised(%#v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
