package runtrace

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// coverageFixture is a job registered at t0 that runs every minute, with a
// row for each slot t0+1m .. t0+10m except those in skip.
func coverageFixture(t *testing.T, skip ...int) (*Store, time.Time) {
	t.Helper()
	s := newStore(t)
	reg, err := s.Register(ctxb, "job:pull", "* * * * * UTC", t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 10; i++ {
		if contains(skip, i) {
			continue
		}
		addSlot(t, s, i)
	}
	return s, reg
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func slot(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

func addSlot(t *testing.T, s *Store, i int) {
	t.Helper()
	if _, err := s.Record(ctxb, Run{JobID: "job:pull", Trigger: "schedule", ScheduledAt: slot(i),
		StartedAt: slot(i), FinishedAt: slot(i).Add(time.Second), Outcome: OutcomeOK, Reason: ReasonCompleted}); err != nil {
		t.Fatal(err)
	}
}

// span is the expected slots i..j of the fixture's schedule.
func span(i, j int) SlotSpan { return SlotSpan{N: j - i + 1, First: slot(i), Last: slot(j)} }

func coverageOf(t *testing.T, s *Store) (Coverage, bool) {
	t.Helper()
	c, ok, err := s.Coverage(ctxb, "job:pull")
	if err != nil {
		t.Fatal(err)
	}
	return c, ok
}

func wantCoverage(t *testing.T, s *Store, from, through int) {
	t.Helper()
	c, ok := coverageOf(t, s)
	if !ok || !c.From.Equal(slot(from)) || !c.Through.Equal(slot(through)) {
		t.Fatalf("coverage %v %v..%v, want slots %d..%d (%v..%v)", ok, c.From, c.Through, from, through, slot(from), slot(through))
	}
}

func extend(t *testing.T, s *Store, reg time.Time, base Coverage, sp SlotSpan) (complete, recorded bool) {
	t.Helper()
	complete, recorded, err := s.ExtendCoverage(ctxb, "job:pull", reg, base, sp)
	if err != nil {
		t.Fatal(err)
	}
	return complete, recorded
}

func TestCoverageGrowsOnlyOverCompleteSpans(t *testing.T) {
	s, reg := coverageFixture(t, 5)
	if _, ok := coverageOf(t, s); ok {
		t.Fatal("a fresh job has coverage")
	}
	if complete, recorded := extend(t, s, reg, Coverage{}, span(1, 10)); complete || recorded {
		t.Fatalf("span with slot 5 missing: complete %v recorded %v, want neither", complete, recorded)
	}
	if _, ok := coverageOf(t, s); ok {
		t.Fatal("an incomplete span was recorded")
	}
	if complete, recorded := extend(t, s, reg, Coverage{}, span(1, 4)); !complete || !recorded {
		t.Fatalf("slots 1..4: complete %v recorded %v, want both", complete, recorded)
	}
	wantCoverage(t, s, 1, 4)
	base, _ := coverageOf(t, s)
	if complete, _ := extend(t, s, reg, base, span(5, 10)); complete {
		t.Fatal("slots 5..10 complete with slot 5 missing")
	}
	wantCoverage(t, s, 1, 4)
}

// A late row (`svc-ctl exec --scheduled`, a catch-up) fills the slot the
// coverage stopped at; the next check counts it and the coverage moves on.
func TestLateRowLetsCoverageMovePastTheGap(t *testing.T) {
	s, reg := coverageFixture(t, 5)
	extend(t, s, reg, Coverage{}, span(1, 4))
	addSlot(t, s, 5)
	base, _ := coverageOf(t, s)
	if complete, recorded := extend(t, s, reg, base, span(5, 10)); !complete || !recorded {
		t.Fatalf("after the late row: complete %v recorded %v, want both", complete, recorded)
	}
	wantCoverage(t, s, 1, 10)
}

// Whatever deletes a covered slot's only row, the coverage no longer claims
// that slot: it starts just after it, so the slot is counted again.
func TestDeletedRowShrinksCoverage(t *testing.T) {
	cases := map[string]func(t *testing.T, s *Store){
		"delete by hand": func(t *testing.T, s *Store) {
			mustExecStore(t, s, `DELETE FROM run_trace WHERE scheduled_at = ?`, slot(6).UnixMilli())
		},
		"slot moved by hand": func(t *testing.T, s *Store) {
			mustExecStore(t, s, `UPDATE run_trace SET scheduled_at = scheduled_at + 1000 WHERE scheduled_at = ?`, slot(6).UnixMilli())
		},
		"row moved to another job": func(t *testing.T, s *Store) {
			mustExecStore(t, s, `UPDATE run_trace SET job_id = 'job:other' WHERE scheduled_at = ?`, slot(6).UnixMilli())
		},
		"prune": func(t *testing.T, s *Store) {
			if _, err := s.Prune(ctxb, slot(6).Add(time.Second)); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, del := range cases {
		t.Run(name, func(t *testing.T) {
			s, reg := coverageFixture(t)
			extend(t, s, reg, Coverage{}, span(1, 10))
			wantCoverage(t, s, 1, 10)
			del(t, s)
			c, ok := coverageOf(t, s)
			if !ok || !c.From.Equal(slot(6).Add(time.Millisecond)) || !c.Through.Equal(slot(10)) {
				t.Fatalf("after losing slot 6: coverage %v %v..%v, want just after slot 6 .. slot 10", ok, c.From, c.Through)
			}
			// Counted again, slot 6 has no row any more.
			if complete, _ := extend(t, s, reg, c, span(1, 6)); complete {
				t.Fatal("slots 1..6 complete after slot 6 lost its row")
			}
		})
	}
}

// Deleting a row outside the coverage, or a watchdog row, leaves it alone.
func TestUnrelatedDeletesKeepCoverage(t *testing.T) {
	s, reg := coverageFixture(t)
	if _, err := s.Record(ctxb, Run{JobID: "watchdog:proxy", Trigger: "schedule", StartedAt: slot(3),
		FinishedAt: slot(3), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning}); err != nil {
		t.Fatal(err)
	}
	extend(t, s, reg, Coverage{}, span(2, 9))
	mustExecStore(t, s, `DELETE FROM run_trace WHERE scheduled_at IN (?, ?) OR job_id = 'watchdog:proxy'`,
		slot(1).UnixMilli(), slot(10).UnixMilli())
	wantCoverage(t, s, 2, 9)
}

// A coverage read before a row was deleted is stale: extending from it must
// not paper over the deleted slot.
func TestStaleBaseIsNotExtended(t *testing.T) {
	s, reg := coverageFixture(t)
	extend(t, s, reg, Coverage{}, span(1, 5))
	base, _ := coverageOf(t, s)
	mustExecStore(t, s, `DELETE FROM run_trace WHERE scheduled_at = ?`, slot(3).UnixMilli())
	complete, recorded := extend(t, s, reg, base, span(6, 10))
	if !complete || recorded {
		t.Fatalf("extending a stale base: complete %v recorded %v, want complete, not recorded", complete, recorded)
	}
	c, _ := coverageOf(t, s)
	if !c.From.After(slot(3)) {
		t.Fatalf("coverage %v..%v still claims the deleted slot 3", c.From, c.Through)
	}
}

// A new schedule expects other slots: its coverage starts from nothing.
func TestNewRegistrationDropsCoverage(t *testing.T) {
	s, reg := coverageFixture(t)
	extend(t, s, reg, Coverage{}, span(1, 10))
	reg2, err := s.Register(ctxb, "job:pull", "*/5 * * * * UTC", slot(11))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := coverageOf(t, s); ok {
		t.Fatalf("coverage %+v survived a new registration", c)
	}
	// An extension computed for the old registration is not recorded.
	if _, recorded := extend(t, s, reg, Coverage{}, span(1, 10)); recorded {
		t.Fatal("coverage recorded for a registration that is no longer the job's")
	}
	if _, recorded := extend(t, s, reg2, Coverage{}, span(1, 10)); !recorded {
		t.Fatal("coverage not recorded for the current registration")
	}
	// Registering the same spec again keeps it.
	if _, err := s.Register(ctxb, "job:pull", "*/5 * * * * UTC", slot(20)); err != nil {
		t.Fatal(err)
	}
	if _, ok := coverageOf(t, s); !ok {
		t.Fatal("an unchanged registration dropped the coverage")
	}
}

// Without the triggers, a deleted row could hide behind coverage: a file
// that lacks them is refused.
func TestMissingCoverageTriggerIsDamage(t *testing.T) {
	path := dbPath(t)
	openT(t, path).Close()
	raw := rawDB(t, path)
	mustExec(t, raw, `DROP TRIGGER run_trace_slot_deleted`)
	raw.Close()
	_, err := Open(path, Options{Logger: quietLogger()})
	if err == nil || !strings.Contains(err.Error(), "run_trace_slot_deleted") {
		t.Fatalf("Open without the trigger: %v, want an error naming it", err)
	}
}

// A ledger of schema v2 gets coverage and its triggers, and keeps its runs.
func TestMigrateV2AddsCoverage(t *testing.T) {
	path := dbPath(t)
	s := openT(t, path)
	addSlot(t, s, 1)
	s.Close()
	raw := rawDB(t, path)
	downgrade(t, raw, 2)
	raw.Close()
	s = openT(t, path)
	if st := schemaOf(t, s); st.version != schemaVersion {
		t.Fatalf("after migration: %+v", st)
	}
	if n, err := s.CountSlots(ctxb, "job:pull", slot(1), slot(1)); err != nil || n != 1 {
		t.Fatalf("run lost: %d, %v", n, err)
	}
	reg, err := s.Register(ctxb, "job:pull", "* * * * * UTC", t0)
	if err != nil {
		t.Fatal(err)
	}
	extend(t, s, reg, Coverage{}, span(1, 1))
	mustExecStore(t, s, `DELETE FROM run_trace`)
	if _, ok := coverageOf(t, s); ok {
		t.Fatal("the migrated file's triggers did not shrink the coverage")
	}
}

// After a slot that will never get a row, coverage restarts past it.
func TestStartCoverageReplaces(t *testing.T) {
	s, reg := coverageFixture(t, 5)
	extend(t, s, reg, Coverage{}, span(1, 4))
	base, _ := coverageOf(t, s)
	if complete, recorded, err := s.StartCoverage(ctxb, "job:pull", reg, base, span(6, 10)); err != nil || !complete || !recorded {
		t.Fatalf("StartCoverage: complete %v recorded %v err %v", complete, recorded, err)
	}
	wantCoverage(t, s, 6, 10)
}

func TestExtendCoverageRefusesABackwardSpan(t *testing.T) {
	s, reg := coverageFixture(t)
	_, _, err := s.ExtendCoverage(ctxb, "job:pull", reg, Coverage{}, SlotSpan{N: 2, First: slot(5), Last: slot(1)})
	if err == nil {
		t.Fatal("a span that ends before it starts was accepted")
	}
}

func mustExecStore(t *testing.T, s *Store, q string, args ...any) {
	t.Helper()
	err := s.tx(ctxb, "test", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctxb, q, args...)
		return err
	})
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", q, err))
	}
}

// everyMinute is the fixture's schedule as a SpanFunc: slots t0+1m, t0+2m, ...
func everyMinute(after, through time.Time) SlotSpan {
	first := after.Truncate(time.Minute).Add(time.Minute)
	if first.Before(slot(1)) {
		first = slot(1)
	}
	if first.After(through) {
		return SlotSpan{}
	}
	last := through.Truncate(time.Minute)
	return SlotSpan{N: int(last.Sub(first)/time.Minute) + 1, First: first, Last: last}
}

func coverThrough(t *testing.T, s *Store, reg, from, through time.Time) (Coverage, bool, bool) {
	t.Helper()
	r, err := s.CoverThrough(ctxb, "job:pull", reg, from, through, everyMinute)
	if err != nil {
		t.Fatal(err)
	}
	return r.Coverage, r.Ok, r.Complete
}

func TestCoverThrough(t *testing.T) {
	s, reg := coverageFixture(t, 8)
	// No coverage yet: counted from `from` (exclusive).
	if _, ok, complete := coverThrough(t, s, reg, slot(2), slot(6)); !ok || !complete {
		t.Fatalf("first cover: ok %v complete %v", ok, complete)
	}
	wantCoverage(t, s, 3, 6)
	// Grown from its end only; slot 8 has no row, so 7..10 is not complete.
	if _, _, complete := coverThrough(t, s, reg, t0, slot(10)); complete {
		t.Fatal("7..10 complete without slot 8")
	}
	wantCoverage(t, s, 3, 6)
	addSlot(t, s, 8)
	if _, _, complete := coverThrough(t, s, reg, t0, slot(10)); !complete {
		t.Fatal("7..10 incomplete after the late row for 8")
	}
	wantCoverage(t, s, 3, 10)
	// Already through: nothing counted.
	if _, _, complete := coverThrough(t, s, reg, t0, slot(9)); !complete {
		t.Fatal("a covered window is not complete")
	}
	wantCoverage(t, s, 3, 10)
}

// A coverage that ends before the window is replaced, not grown over the
// slots between (which were never counted).
func TestCoverThroughRestartsAfterAGap(t *testing.T) {
	s, reg := coverageFixture(t, 5)
	extend(t, s, reg, Coverage{}, span(1, 2))
	coverThrough(t, s, reg, slot(6), slot(10))
	wantCoverage(t, s, 7, 10)
}

func TestCoverThroughReadOnlyCountsOnly(t *testing.T) {
	path := dbPath(t)
	w := openT(t, path)
	reg, err := w.Register(ctxb, "job:pull", "* * * * * UTC", t0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		addSlot(t, w, i)
	}
	ro, err := Open(path, Options{ReadOnly: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	r, err := ro.CoverThrough(ctxb, "job:pull", reg, t0, slot(3), everyMinute)
	if err != nil || r.Ok || !r.Complete || r.Counted != span(1, 3) {
		t.Fatalf("read-only: %+v, %v; want slots 1..3 counted complete, nothing recorded", r, err)
	}
	if r, _ := ro.CoverThrough(ctxb, "job:pull", reg, t0, slot(4), everyMinute); r.Complete {
		t.Fatal("read-only: slot 4 has no row but counted complete")
	}
	if complete, recorded, err := ro.ExtendCoverage(ctxb, "job:pull", reg, Coverage{}, span(1, 3)); err != nil || !complete || recorded {
		t.Fatalf("read-only ExtendCoverage: complete %v recorded %v err %v; want counted, not recorded", complete, recorded, err)
	}
}
