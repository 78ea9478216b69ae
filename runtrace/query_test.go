package runtrace

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func ids(runs []Run) string {
	out := ""
	for _, r := range runs {
		out += fmt.Sprintf("%s@%d ", r.JobID, r.StartedAt.Sub(t0)/time.Minute)
	}
	return out
}

func seedQueries(t *testing.T) *Store {
	t.Helper()
	s := newStore(t)
	for _, r := range []Run{
		{JobID: "watchdog:proxy", StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonAlreadyRunning},
		{JobID: "job:pull", ScheduledAt: t0.Add(time.Minute), StartedAt: t0.Add(time.Minute), Outcome: OutcomeOK, Reason: ReasonCompleted},
		{JobID: "watchdog:db", StartedAt: t0.Add(2 * time.Minute), Outcome: OutcomeFailed, Reason: ReasonStartFailed},
		{JobID: "watchdog;x", StartedAt: t0.Add(3 * time.Minute), Outcome: OutcomeOK, Reason: ReasonStarted},
		{JobID: "watchdog", StartedAt: t0.Add(4 * time.Minute), Outcome: OutcomeOK, Reason: ReasonStarted},
		{JobID: "job:pull", ScheduledAt: t0.Add(5 * time.Minute), StartedAt: t0.Add(5 * time.Minute), Outcome: OutcomeSkipped, Reason: ReasonOverlap},
		{JobID: "watchdog:proxy", StartedAt: t0.Add(6 * time.Minute), Outcome: OutcomeFailed, Reason: ReasonStartFailed},
	} {
		mustRecord(t, s, r)
	}
	if _, err := s.Begin(ctxb, "job:pull", TriggerSchedule, t0.Add(5*time.Minute), t0.Add(7*time.Minute)); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunsFilters(t *testing.T) {
	s := seedQueries(t)
	for _, c := range []struct {
		name string
		f    Filter
		want string
	}{
		{"all newest first", Filter{}, "job:pull@7 watchdog:proxy@6 job:pull@5 watchdog@4 watchdog;x@3 watchdog:db@2 job:pull@1 watchdog:proxy@0 "},
		{"exact job", Filter{JobID: "job:pull"}, "job:pull@7 job:pull@5 job:pull@1 "},
		{"prefix", Filter{JobPrefix: "watchdog:"}, "watchdog:proxy@6 watchdog:db@2 watchdog:proxy@0 "},
		{"since inclusive, until exclusive", Filter{Since: t0.Add(2 * time.Minute), Until: t0.Add(5 * time.Minute)}, "watchdog@4 watchdog;x@3 watchdog:db@2 "},
		{"outcome", Filter{Outcome: OutcomeFailed}, "watchdog:proxy@6 watchdog:db@2 "},
		{"running", Filter{Outcome: OutcomeRunning}, "job:pull@7 "},
		{"reason and prefix", Filter{JobPrefix: "watchdog:", Reason: ReasonStartFailed}, "watchdog:proxy@6 watchdog:db@2 "},
		{"limit", Filter{Limit: 2}, "job:pull@7 watchdog:proxy@6 "},
		{"nothing", Filter{JobID: "job:none"}, ""},
	} {
		runs, err := s.Runs(ctxb, c.f)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := ids(runs); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		c.f.Limit = 0
		n, err := s.Count(ctxb, c.f)
		if err != nil {
			t.Fatal(err)
		}
		if all, _ := s.Runs(ctxb, c.f); n != len(all) {
			t.Errorf("%s: Count = %d, Runs without limit = %d", c.name, n, len(all))
		}
	}
}

func TestRunsRejectsUnknownFilterValues(t *testing.T) {
	s := newStore(t)
	for _, f := range []Filter{{Outcome: "failure"}, {Reason: "crashed"}} {
		if _, err := s.Runs(ctxb, f); !errors.Is(err, ErrBadReason) {
			t.Errorf("Runs(%+v) = %v, want ErrBadReason", f, err)
		}
		if _, err := s.Count(ctxb, f); !errors.Is(err, ErrBadReason) {
			t.Errorf("Count(%+v) = %v, want ErrBadReason", f, err)
		}
	}
}

func TestLatest(t *testing.T) {
	s := seedQueries(t)
	r, err := s.Latest(ctxb, "watchdog:proxy")
	if err != nil || r == nil || r.Reason != ReasonStartFailed || !r.StartedAt.Equal(t0.Add(6*time.Minute)) {
		t.Fatalf("Latest = %+v, %v", r, err)
	}
	r, err = s.LatestBefore(ctxb, "watchdog:proxy", t0.Add(6*time.Minute))
	if err != nil || r == nil || !r.StartedAt.Equal(t0) {
		t.Fatalf("LatestBefore = %+v, %v", r, err)
	}
	if r, err := s.LatestBefore(ctxb, "watchdog:proxy", t0); r != nil || err != nil {
		t.Fatalf("LatestBefore the first run = %+v, %v; want nil, nil", r, err)
	}
	if r, err := s.Latest(ctxb, "job:never"); r != nil || err != nil {
		t.Fatalf("Latest of a job without runs = %+v, %v; want nil, nil", r, err)
	}
}

func TestScheduledSlots(t *testing.T) {
	s := seedQueries(t)
	slots, err := s.ScheduledSlots(ctxb, "job:pull", t0, t0.Add(5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	// The slot at +5m has a skipped and a running row: listed once; both
	// ends of the range are included.
	want := []time.Time{t0.Add(time.Minute), t0.Add(5 * time.Minute)}
	if fmt.Sprint(slots) != fmt.Sprint(want) {
		t.Fatalf("slots %v, want %v", slots, want)
	}
	if slots, _ := s.ScheduledSlots(ctxb, "job:pull", t0.Add(2*time.Minute), t0.Add(4*time.Minute)); len(slots) != 0 {
		t.Fatalf("slots in an empty range: %v", slots)
	}
	if slots, _ := s.ScheduledSlots(ctxb, "watchdog:proxy", t0, t0.Add(time.Hour)); len(slots) != 0 {
		t.Fatalf("watchdog rows have no slots: %v", slots)
	}
	// CountSlots counts what ScheduledSlots lists.
	if n, err := s.CountSlots(ctxb, "job:pull", t0, t0.Add(5*time.Minute)); err != nil || n != len(want) {
		t.Fatalf("CountSlots = %d, %v; want %d", n, err, len(want))
	}
}

// The queries the CLI runs use the indexes, not a scan of 2.9 M rows.
func TestQueryPlansUseIndexes(t *testing.T) {
	s := newStore(t)
	for _, c := range []struct {
		name, q string
		args    []any
		index   string
	}{
		{"runs --job --since", `SELECT id FROM run_trace WHERE job_id = ? AND started_at >= ? ORDER BY started_at DESC, id DESC LIMIT 50`,
			[]any{"job:a", 0}, "run_trace_job_started"},
		{"slots", `SELECT DISTINCT scheduled_at FROM run_trace WHERE job_id = ? AND scheduled_at >= ? AND scheduled_at <= ? ORDER BY scheduled_at`,
			[]any{"job:a", 0, 1}, "run_trace_job_slot"},
		{"runs --job-prefix, limited", `SELECT id FROM run_trace WHERE +job_id >= ? AND +job_id < ? ORDER BY started_at DESC, id DESC LIMIT 50`,
			[]any{"watchdog:", "watchdog;"}, "COVERING INDEX run_trace_started"},
		{"runs --outcome running", `SELECT id FROM run_trace WHERE outcome = 'running' ORDER BY started_at DESC, id DESC LIMIT 50`,
			nil, "run_trace_running"},
		{"reaper", `SELECT id, job_id, started_at FROM run_trace WHERE outcome = 'running' ORDER BY started_at`,
			nil, "run_trace_running"},
		{"prune", `SELECT id FROM run_trace WHERE started_at < ? LIMIT 5000`, []any{1}, "run_trace_started"},
	} {
		plan := ""
		rows, err := s.r.Query("EXPLAIN QUERY PLAN "+c.q, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan += detail + "; "
		}
		rows.Close()
		if !strings.Contains(plan, c.index) {
			t.Errorf("%s: plan %q does not use %s", c.name, plan, c.index)
		}
	}
}
