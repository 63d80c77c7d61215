package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentproto/agentproto/internal/spool"
	"github.com/agentproto/agentproto/pkg/validate"
)

// traceList holds what each ended trace was read as, for a summary that
// lists the traces (text and JSON): one line per trace, "1" if it had
// findings ("0" if not) and then its Detected as --format json writes it.
// It is a spool, so that memory does not grow with the number of traces.
type traceList struct {
	traces spool.Spool
	// noisy holds the traces with findings, by name, until they end.
	noisy map[string]bool
}

// finding notes that the trace of f has a finding.
func (l *traceList) finding(f validate.Finding) {
	if l.noisy == nil {
		l.noisy = map[string]bool{}
	}
	l.noisy[f.File] = true
}

// end keeps what sum.Detected says of the trace name. A trace has
// findings if one was told or its summary counts one (a finding that went
// only to a baseline being written).
func (l *traceList) end(o *out, name string, sum validate.Summary) error {
	defer delete(l.noisy, name)
	for _, d := range sum.Detected {
		flag := "0"
		if l.noisy[d.File] || sum.Errors+sum.Warnings > 0 {
			flag = "1"
		}
		b, err := o.marshal(DetectedJSON(d))
		if err != nil {
			return err
		}
		if _, err := l.traces.WriteString(flag); err != nil {
			return err
		}
		if _, err := l.traces.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// each calls fn with every trace the summary lists: those kept by end,
// then those of s.Detected, each as a JSONDetected (decoded only if decode
// is set), its JSON as --format json writes it (escaped, without a
// newline), and whether it had findings.
func (l *traceList) each(o *out, s validate.Summary, decode bool, fn func(d JSONDetected, raw []byte, noisy bool) error) error {
	if l.traces.Size() > 0 {
		r, err := l.traces.Reader()
		if err != nil {
			return err
		}
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 1 {
				raw := bytes.TrimSuffix(line[1:], []byte("\n"))
				var d JSONDetected
				if decode {
					if jerr := json.Unmarshal(raw, &d); jerr != nil {
						return fmt.Errorf("reading back the traces held for the summary: %w", jerr)
					}
				}
				if ferr := fn(d, raw, line[0] == '1'); ferr != nil {
					return ferr
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("reading back the traces held for the summary: %w", err)
			}
		}
	}
	for _, d := range s.Detected {
		jd := DetectedJSON(d)
		b, err := o.marshal(jd)
		if err != nil {
			return err
		}
		raw := bytes.TrimSuffix(b, []byte("\n"))
		if err := fn(jd, append([]byte(nil), raw...), l.noisy[d.File]); err != nil {
			return err
		}
	}
	return nil
}

// reset drops what the list holds.
func (l *traceList) reset() { l.traces.Reset() }
