package runtrace

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkBeginFinish measures one run's two commits (Begin, then Finish)
// on a real file, synchronous=FULL. Beside ns/op it reports the median and
// the 99th percentile of single Begin+Finish pairs.
func BenchmarkBeginFinish(b *testing.B) {
	s, err := Open(b.TempDir()+"/svc-ctl.db", Options{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	lat := make([]time.Duration, 0, b.N)
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		id, err := s.Begin(ctxb, "job:bench", TriggerSchedule, t0.Add(time.Duration(i)*time.Minute), start)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Finish(ctxb, id, OutcomeOK, ReasonCompleted, map[string]int{"exit_code": 0}, time.Now()); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
	}
}

// BenchmarkRecord and BenchmarkRecordLazy: one finished row in one commit,
// fsynced (Record) or not (RecordLazy): what a healthy cycle costs the
// ledger either way.
func BenchmarkRecord(b *testing.B)     { benchRecord(b, (*Store).Record) }
func BenchmarkRecordLazy(b *testing.B) { benchRecord(b, (*Store).RecordLazy) }

func benchRecord(b *testing.B, rec func(*Store, context.Context, Run) (int64, error)) {
	s, err := Open(b.TempDir()+"/svc-ctl.db", Options{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; b.Loop(); i++ {
		now := t0.Add(time.Duration(i) * time.Second)
		if _, err := rec(s, ctxb, Run{JobID: "watchdog:web", Trigger: TriggerSchedule, StartedAt: now,
			FinishedAt: now.Add(3 * time.Millisecond), Outcome: OutcomeOK, Reason: ReasonAlreadyRunning,
			Detail: []byte(`{"probe":"http","latency_ms":1}`)}); err != nil {
			b.Fatal(err)
		}
	}
}
