package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentproto/agentproto/pkg/validate"
	"github.com/agentproto/agentproto/pkg/validate/config"
)

// ruleSettings returns, per input, the rules to turn off or down: those of
// the config file (--config, or the .agentproto.json found by walking up
// from the trace's folder; standard input's from the working directory),
// then those of --disable and --warn. nil means no change. A config file
// that does not fit its schema or names an unknown rule is an error.
func ruleSettings(inputs []input, o options, flags validate.RuleControl) ([]*validate.RuleControl, error) {
	out := make([]*validate.RuleControl, len(inputs))
	loaded := map[string]*config.Config{}
	load := func(p string) (*config.Config, error) {
		if c, ok := loaded[p]; ok {
			return c, nil
		}
		c, err := config.Load(p)
		if err != nil {
			return nil, err
		}
		loaded[p] = c
		return c, nil
	}
	found := map[string]string{} // folder -> config path ("" for none)
	for i, in := range inputs {
		if in.err != nil {
			continue
		}
		var cfgPath string
		switch {
		case o.noConfig:
		case o.config != "":
			cfgPath = o.config
		default:
			dir := "."
			if in.name != "-" {
				dir = filepath.Dir(in.name)
			}
			p, ok := found[dir]
			if !ok {
				var err error
				if p, err = config.Find(dir); err != nil {
					return nil, err
				}
				found[dir] = p
			}
			cfgPath = p
		}
		rc := validate.RuleControl{}
		if cfgPath != "" {
			c, err := load(cfgPath)
			if err != nil {
				return nil, err
			}
			name := in.name
			if name == "-" {
				name = "."
			}
			rc = c.For(name)
		}
		rc = rc.Merge(flags)
		if !rc.Empty() {
			out[i] = &rc
		}
	}
	return out, nil
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
