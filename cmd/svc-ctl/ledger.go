package main

import (
	"fmt"
	"os"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/state"
)

// openLedgerForRead opens run_trace for a command that reads it. A missing or
// damaged file is an error that names the file (exit 1: the check could not
// be made).
func openLedgerForRead(cfg *config.Config) (*runtrace.Store, error) {
	path := state.PathsOf(cfg).DB()
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no run_trace ledger at %s: has the agent (or 'svc-ctl start') ever run with this config? (%w)", path, err)
	}
	st, err := runtrace.Open(path, runtrace.Options{})
	if err != nil {
		return nil, fmt.Errorf("run_trace ledger unavailable: %w", err)
	}
	return st, nil
}
