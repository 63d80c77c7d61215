package emit

import "go/format"

// SourceError formats src and returns the error Render would report.
func SourceError(src []byte) string {
	_, err := format.Source(src)
	if err == nil {
		return ""
	}
	return sourceError(src, err)
}
