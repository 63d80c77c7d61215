package buildinfo

import (
	"fmt"
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "28829e6a1b2c3d4e5f60718293a4b5c6d7e8f901"}, {Key: "vcs.time", Value: "2026-11-26T19:45:32Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"go run from a checkout (no VCS stamp)", debug.BuildInfo{GoVersion: "go1.26.8", Path: "github.com/agentproto/agentproto/cmd/validate", Main: debug.Module{Path: "github.com/agentproto/agentproto", Version: "(devel)"}},
			"validate github.com/agentproto/agentproto (devel), go1.26.8"},
		{"go install from a checkout with changes", debug.BuildInfo{GoVersion: "go1.26.8", Path: "github.com/agentproto/agentproto/cmd/validate", Main: debug.Module{Path: "github.com/agentproto/agentproto", Version: "v0.0.0-20261126194532-28829e6a1b2c+dirty"}, Settings: vcs},
			"validate github.com/agentproto/agentproto v0.0.0-20261126194532-28829e6a1b2c+dirty, revision 28829e6a1b2c (modified), 2026-11-26T19:45:32Z, go1.26.8"},
		{"a clean checkout", debug.BuildInfo{GoVersion: "go1.26.8", Path: "github.com/agentproto/agentproto/cmd/validate", Main: debug.Module{Path: "github.com/agentproto/agentproto", Version: "(devel)"}, Settings: vcs[:3]},
			"validate github.com/agentproto/agentproto (devel), revision 28829e6a1b2c, 2026-11-26T19:45:32Z, go1.26.8"},
		{"a released version", debug.BuildInfo{GoVersion: "go1.26.8", Path: "github.com/agentproto/agentproto/cmd/validate", Main: debug.Module{Path: "github.com/agentproto/agentproto", Version: "v1.2.3"}},
			"validate github.com/agentproto/agentproto v1.2.3, go1.26.8"},
		{"a tool of another module, through a replace: the other module's VCS state is not ours", debug.BuildInfo{GoVersion: "go1.26.8", Path: "github.com/agentproto/agentproto/cmd/protogen", Main: debug.Module{Path: "example.test/down", Version: "(devel)"},
			Deps:     []*debug.Module{{Path: "github.com/dave/jennifer", Version: "v1.7.1"}, {Path: "github.com/agentproto/agentproto", Version: "v0.0.0-00010101000000-000000000000", Replace: &debug.Module{Path: "../agentproto"}}},
			Settings: vcs},
			"protogen github.com/agentproto/agentproto v0.0.0-00010101000000-000000000000 => ../agentproto, go1.26.8"},
		{"a tool of another module, from the proxy", debug.BuildInfo{GoVersion: "go1.26.8", Path: "github.com/agentproto/agentproto/cmd/protogen", Main: debug.Module{Path: "example.test/down", Version: "(devel)"},
			Deps: []*debug.Module{{Path: "github.com/agentproto/agentproto", Version: "v1.2.3"}}},
			"protogen github.com/agentproto/agentproto v1.2.3, go1.26.8"},
	} {
		cmd := "validate"
		if c.bi.Path == "github.com/agentproto/agentproto/cmd/protogen" {
			cmd = "protogen"
		}
		if got := FromBuildInfo(cmd, &c.bi).String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestRead: a test binary carries build information whose main module is
// agentproto.
func TestRead(t *testing.T) {
	in, ok := Read("buildinfo.test")
	if !ok {
		t.Skip("this test binary has no build information")
	}
	if in.Module != "github.com/agentproto/agentproto" || in.Go == "" {
		t.Errorf("Read: %+v, want module github.com/agentproto/agentproto and a Go version", in)
	}
}

func ExampleInfo_String() {
	in := FromBuildInfo("validate", &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Path:      "github.com/agentproto/agentproto/cmd/validate",
		Main:      debug.Module{Path: "github.com/agentproto/agentproto", Version: "(devel)"},
		Settings:  []debug.BuildSetting{{Key: "vcs.revision", Value: "28829e6a1b2c3d4e5f60718293a4b5c6d7e8f901"}, {Key: "vcs.modified", Value: "true"}},
	})
	fmt.Println(in)
	// Output: validate github.com/agentproto/agentproto (devel), revision 28829e6a1b2c (modified), go1.26.8
}
