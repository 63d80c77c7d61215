package explain

import (
	"testing"
	"testing/fstest"
)

// TestDocsReadsWhatIsAsked: a document is found by the file its $id
// names without reading the others; an $id that names no file is found
// by reading every file once; an $id no file has is nobody's.
func TestDocsReadsWhatIsAsked(t *testing.T) {
	const prefix = "https://example.test/schema/"
	fsys := fstest.MapFS{
		"acp/v1/common.json":   {Data: []byte(`{"$id":"https://example.test/schema/acp/v1/common.json","title":"Common"}`)},
		"acp/v1/untitled.json": {Data: []byte(`{"type":"object"}`)},
		"bundle.json":          {Data: []byte(`{"$id":"https://example.test/bundles/all.json","title":"Bundle"}`)},
		"broken.json":          {Data: []byte(`{`)},
	}
	d := NewDocs(fsys, prefix)
	if got := d.title(prefix + "acp/v1/common.json"); got != "Common" {
		t.Errorf("title of common.json = %q, want Common", got)
	}
	if d.doc(prefix+"acp/v1/untitled.json") == nil || d.title(prefix+"acp/v1/untitled.json") != "" {
		t.Error("a file without $id or title is its path's, untitled")
	}
	if d.walked {
		t.Error("files found by their path made Docs read every file")
	}
	if got := d.title("https://example.test/bundles/all.json"); got != "Bundle" {
		t.Errorf("title of the bundle = %q, want Bundle", got)
	}
	if !d.walked {
		t.Error("an $id that names no path was found without reading every file")
	}
	for _, id := range []string{prefix + "broken.json", prefix + "../etc/passwd", prefix + "missing.json", "other"} {
		if d.doc(id) != nil || d.title(id) != "" {
			t.Errorf("%s: a document where there is none", id)
		}
	}
}
