package main

import (
	"fmt"
	"os"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/state"
)

// openLedgerForRead opens run_trace read-only (mode=ro: no file created, no
// migration; an older schema is reported, never changed) for a command that
// reads it. A missing or damaged file is an error that names the file (exit
// 1: the check could not be made); one this user may not read says so and
// what to do, never "has the agent ever run?".
func openLedgerForRead(cfg *config.Config) (*runtrace.Store, error) {
	p := state.PathsOf(cfg)
	if err := state.Readable(p); err != nil {
		return nil, err
	}
	path := p.DB()
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no run_trace ledger at %s: has the agent (or 'svc-ctl start') ever run with this config? (%w)", path, err)
	}
	st, err := runtrace.Open(path, runtrace.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("run_trace ledger unavailable: %w", state.Denied(path, err))
	}
	return st, nil
}
