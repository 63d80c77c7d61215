package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/config"
)

// ruleFinder finds, per input, the rules to turn off or down: those of
// the config file (--config, or the .agentproto.json found by walking up
// from the trace's folder; standard input's from the working directory),
// then those of --disable and --warn. A config file that does not fit its
// schema or names an unknown rule is an error. It remembers the config
// files it loaded and the folder it last looked in, not every trace's.
type ruleFinder struct {
	o       options
	flags   validate.RuleControl
	loaded  map[string]*config.Config
	lastDir string
	lastCfg string // the config path found for lastDir ("" for none)
	looked  bool
}

func newRuleFinder(o options, flags validate.RuleControl) *ruleFinder {
	return &ruleFinder{o: o, flags: flags, loaded: map[string]*config.Config{}}
}

func (r *ruleFinder) load(p string) (*config.Config, error) {
	if c, ok := r.loaded[p]; ok {
		return c, nil
	}
	c, err := config.Load(p)
	if err != nil {
		return nil, err
	}
	r.loaded[p] = c
	return c, nil
}

// For returns the rules of in; nil means no change.
func (r *ruleFinder) For(in input) (*validate.RuleControl, error) {
	if in.err != nil {
		return nil, nil
	}
	var cfgPath string
	switch {
	case r.o.noConfig:
	case r.o.config != "":
		cfgPath = r.o.config
	default:
		dir := "."
		if in.name != "-" {
			dir = filepath.Dir(in.name)
		}
		if !r.looked || dir != r.lastDir {
			p, err := config.Find(dir)
			if err != nil {
				return nil, err
			}
			r.lastDir, r.lastCfg, r.looked = dir, p, true
		}
		cfgPath = r.lastCfg
	}
	rc := validate.RuleControl{}
	if cfgPath != "" {
		c, err := r.load(cfgPath)
		if err != nil {
			return nil, err
		}
		name := in.name
		if name == "-" {
			name = "."
		}
		rc = c.For(name)
	}
	rc = rc.Merge(r.flags)
	if rc.Empty() {
		return nil, nil
	}
	return &rc, nil
}

// readBaseline reads a --baseline file.
func readBaseline(p string) (*validate.Baseline, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	defer f.Close()
	dir, err := filepath.Abs(filepath.Dir(p))
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	b, err := validate.ReadBaseline(f, dir)
	if err != nil {
		return nil, fmt.Errorf("--baseline %s: %w", p, err)
	}
	return b, nil
}

// writeBaseline writes a --write-baseline file: to a temporary file beside
// it first, so that an interrupted run never leaves half a baseline.
func writeBaseline(p string, w *validate.BaselineWriter) error {
	b, err := w.Encode()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".baseline-*")
	if err != nil {
		return fmt.Errorf("--write-baseline: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("--write-baseline: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("--write-baseline: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--write-baseline: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("--write-baseline: %w", err)
	}
	return nil
}
