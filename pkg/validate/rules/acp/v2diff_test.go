package acp

import (
	"reflect"
	"testing"
)

func TestReadPatch(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []patchItem
	}{
		{"absolute section", "diff --git /a/x.go /a/x.go\nindex 1..2 100644\n--- /a/x.go\n+++ /a/x.go\n@@ -1 +1 @@\n-a\n+b\n",
			[]patchItem{{line: 1, path: "/a/x.go"}, {line: 3, path: "/a/x.go"}, {line: 4, path: "/a/x.go"}}},
		{"a hunk line that looks like a header", "diff --git /a/x /a/x\n--- /a/x\n+++ /a/x\n@@ -1,2 +1,1 @@\n--- not a header\n From: context\n",
			[]patchItem{{line: 1, path: "/a/x"}, {line: 2, path: "/a/x"}, {line: 3, path: "/a/x"}}},
		{"new file", "diff --git /a/n /a/n\nnew file mode 100644\n--- /dev/null\n+++ /a/n\n@@ -0,0 +1 @@\n+x\n",
			[]patchItem{{line: 1, path: "/a/n", op: "add"}, {line: 4, path: "/a/n"}}},
		{"git's prefixes", "diff --git a/x b/x\n", []patchItem{{line: 1, path: "a/x"}, {line: 1, path: "b/x"}}},
		{"a commit around it", "From 3f2a Mon Sep 17 00:00:00 2001\ndiff --git /x /x\n", []patchItem{{line: 1, header: "From 3f2a Mon Sep 17 00:00:00 2001"}}},
		{"a subject between sections", "diff --git /x /x\n@@ -1 +1 @@\n-a\n+b\nSubject: [PATCH 2/2] more\n", []patchItem{{line: 1, path: "/x"}, {line: 5, header: "Subject: [PATCH 2/2] more"}}},
		{"a path with a space", "diff --git /a b/x /a b/x\n", []patchItem{{line: 1, path: "/a b/x"}}},
	} {
		if got := readPatch(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: readPatch = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
