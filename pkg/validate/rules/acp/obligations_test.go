package acp

import "testing"

// TestInsecureURL: a plain http URL is insecure unless it names the local
// machine, whatever its case, port or user part.
func TestInsecureURL(t *testing.T) {
	for u, want := range map[string]bool{
		"https://agent.example.com/connect":    false,
		"http://agent.example.com/connect":     true,
		"HTTP://agent.example.com":             true,
		"http://localhost:8080/cb":             false,
		"http://dev.localhost/cb":              false,
		"http://127.0.0.1:9/cb":                false,
		"http://[::1]:9/cb":                    false,
		"http://user@evil.example@localhost/x": false,
		"http://localhost.evil.example/x":      true,
		"ftp://agent.example.com":              false,
		"":                                     false,
	} {
		if got := insecureURL(u); got != want {
			t.Errorf("insecureURL(%q) = %v, want %v", u, got, want)
		}
	}
}
