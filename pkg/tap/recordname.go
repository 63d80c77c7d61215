package tap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
)

// maxNameTries bounds the names tried for one recording: a record folder
// that holds that many earlier recordings in a row gets an error, not a
// search without end.
const maxNameTries = 100000

// createRecording creates, in dir, the first free file of the sequence
// name(seq+1), name(seq+2)…, with each of its sidecars (the name plus each
// of suffixes), and advances seq past it. A relay restarted on a folder
// that already holds 0001.jsonl goes on with the next free number instead
// of recording nothing: no file is ever overwritten, and a name is taken
// only when the trace and all its sidecars are free.
func createRecording(dir string, seq *atomic.Int64, name func(n int64) string, suffixes ...string) (string, []*os.File, error) {
	for try := 0; try < maxNameTries; try++ {
		p := filepath.Join(dir, name(seq.Add(1)))
		files, err := createAll(p, suffixes)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return p, nil, err
		}
		return p, files, nil
	}
	return "", nil, fmt.Errorf("no free name in %s after %d tries: move the earlier recordings away", dir, maxNameTries)
}

// createAll creates p and p+suffix for each suffix, all or none.
func createAll(p string, suffixes []string) ([]*os.File, error) {
	var files []*os.File
	for _, s := range append([]string{""}, suffixes...) {
		f, err := os.OpenFile(p+s, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			for _, g := range files {
				g.Close()
				os.Remove(g.Name())
			}
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}
