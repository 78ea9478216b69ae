// Package testenv holds what the tests of the rooms above the leaves share
// (watchdog, agent, report): a real ledger for a test's config. It imports
// proc, runtrace and state, so the leaves' own tests use internal/testutil,
// which imports none of them. Only tests import it.
package testenv

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// Ledger opens the run_trace of cfg's state dir (a real SQLite file) for the
// test, and at its end stops every service instance the state dir's pid
// files name (identity-checked: a reused pid is never signalled) and closes
// the ledger.
func Ledger(t testing.TB, cfg *config.Config) *runtrace.Store {
	t.Helper()
	p := state.PathsOf(cfg)
	// Its own events (runtrace.migrated) are not the test's output: under the
	// Windows harness a stray line beside a tolerated failure is an
	// unexplained one.
	st, err := runtrace.Open(p.DB(), runtrace.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Every pid file in the state dir, not only the services of the
		// config the test began with: a reload adds services, and a removed
		// one keeps running unsupervised (65 were once left behind by
		// the reload tests). The whole tree of each, identity-checked.
		pids, _ := filepath.Glob(filepath.Join(p.State, "services", "*", "pid"))
		for _, f := range pids {
			if inst, err := proc.ReadInstance(f); err == nil {
				proc.StopTree(context.Background(), inst, 2*time.Second)
			}
		}
		st.Close()
	})
	return st
}
