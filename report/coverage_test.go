package report

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
	"svcctl/state"
)

// A job every minute, registered at reg0, with a real ledger; tests write
// its rows and ask SlotsFor at fixed times (no clock).
type slotEnv struct {
	cfg   *config.Config
	job   *config.Job
	store *runtrace.Store
	reg   time.Time
}

var reg0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newSlotEnv(t *testing.T) *slotEnv {
	t.Helper()
	cfg := testutil.Config(t, "", `
[[job]]
name = "pull"
schedule = "* * * * *"
timezone = "UTC"
external = true
grace = "0s"
`)
	st, err := runtrace.Open(state.PathsOf(cfg).DB(), runtrace.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	j := cfg.Job("pull")
	reg, err := st.Register(context.Background(), runtrace.JobID("pull"), j.Registration(), reg0)
	if err != nil {
		t.Fatal(err)
	}
	return &slotEnv{cfg: cfg, job: j, store: st, reg: reg}
}

func minute(i int) time.Time { return reg0.Add(time.Duration(i) * time.Minute) }

// run writes a row for slot i (as `svc-ctl exec --scheduled` would).
func (e *slotEnv) run(t *testing.T, slots ...int) {
	t.Helper()
	for _, i := range slots {
		if _, err := e.store.Record(context.Background(), runtrace.Run{JobID: runtrace.JobID("pull"),
			Trigger: runtrace.TriggerSchedule, ScheduledAt: minute(i), StartedAt: minute(i),
			Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonCompleted}); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *slotEnv) runRange(t *testing.T, from, to int, except ...int) {
	t.Helper()
	for i := from; i <= to; i++ {
		if !slices.Contains(except, i) {
			e.run(t, i)
		}
	}
}

// missingAt is SlotsFor over the whole life of the job, asked at minute
// `at` (grace 0: every slot up to `at` is due), as minute numbers.
func (e *slotEnv) missingAt(t *testing.T, st *runtrace.Store, at int) []int {
	t.Helper()
	js, err := SlotsFor(context.Background(), st, e.job, reg0, minute(at).Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, m := range js.Missing {
		out = append(out, int(m.Sub(reg0)/time.Minute))
	}
	return out
}

func (e *slotEnv) wantMissing(t *testing.T, at int, want ...int) {
	t.Helper()
	if got := e.missingAt(t, e.store, at); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("missing at minute %d = %v, want %v", at, got, want)
	}
}

// del deletes slot i's rows with plain SQL, as a person with sqlite3 would.
func (e *slotEnv) del(t *testing.T, i int) {
	t.Helper()
	db, err := sql.Open("sqlite", e.store.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(`DELETE FROM run_trace WHERE job_id = ? AND scheduled_at = ?`, runtrace.JobID("pull"), minute(i).UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		t.Fatalf("no row of slot %d to delete", i)
	}
}

// The coverage that makes `missing` fast never hides a slot: not one that
// a late row fills, not one whose row is deleted, before or after a check
// has recorded coverage over its neighbours.
func TestCoverageNeverHidesASlot(t *testing.T) {
	e := newSlotEnv(t)
	e.runRange(t, 1, 60, 30)
	e.wantMissing(t, 60, 30)
	e.wantMissing(t, 60, 30) // asked again: answered from the coverage, same answer

	// A late row for the missing slot: the next check sees it.
	e.run(t, 30)
	e.wantMissing(t, 60)

	// A row deleted behind the coverage (by hand, with sqlite3): the slot
	// is missing again.
	e.del(t, 45)
	e.wantMissing(t, 60, 45)

	// Later slots: one missed in the part after the coverage, then filled.
	e.runRange(t, 61, 90, 75)
	e.wantMissing(t, 90, 45, 75)
	e.run(t, 75)
	e.wantMissing(t, 90, 45)
	e.run(t, 45)
	e.wantMissing(t, 90)

	// A read-only reader gets the same answers and records nothing.
	ro, err := runtrace.Open(e.store.Path(), runtrace.Options{ReadOnly: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	e.del(t, 80)
	if got := e.missingAt(t, ro, 90); fmt.Sprint(got) != "[80]" {
		t.Fatalf("read-only: missing %v, want [80]", got)
	}
}

// The answer with coverage equals the answer from scratch, for random gaps
// and checks at random times (the coverage is exercised, never trusted).
func TestCoverageAgreesWithAFullCount(t *testing.T) {
	e := newSlotEnv(t)
	gaps := map[int]bool{3: true, 4: true, 17: true, 41: true, 42: true, 43: true, 99: true}
	at := 0
	for _, next := range []int{10, 11, 20, 45, 46, 60, 100, 120} {
		for i := at + 1; i <= next; i++ {
			if !gaps[i] {
				e.run(t, i)
			}
		}
		at = next
		var want []int
		for i := 1; i <= at; i++ {
			if gaps[i] {
				want = append(want, i)
			}
		}
		e.wantMissing(t, at, want...)
		if at == 45 { // a late row for an old gap
			delete(gaps, 17)
			e.run(t, 17)
		}
	}
}
