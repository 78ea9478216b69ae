package runtrace

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// BenchmarkQueueDown is what a run costs its writer while the ledger
// refuses writes: Begin and Finish through a Queue that is down go to
// memory only, never to the disk. Beside ns/op it reports the bytes each
// waiting row holds (heap growth over 10,000 queued rows, a watchdog
// cycle's typical detail).
func BenchmarkQueueDown(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "svc-ctl.db"), Options{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.w.Exec("PRAGMA query_only = ON"); err != nil {
		b.Fatal(err)
	}
	detail := map[string]any{"message": "already-running", "state": "healthy", "consecutive_failures": 0,
		"probe": []map[string]any{{"kind": "http", "target": "http://127.0.0.1:8789/health", "healthy": true, "latency_ms": 0.8, "detail": "200 OK"}}}
	q := NewQueue(s, QueueOptions{SpillDirs: []string{b.TempDir()}, Max: 1 << 30})
	// take it down: the first refused write is the one that touches the disk
	q.Record(ctxb, Run{JobID: "agent", Trigger: TriggerStartup, StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonStarted})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		start := t0.Add(time.Duration(n) * time.Second)
		id, err := q.Begin(ctxb, "watchdog:web", TriggerSchedule, time.Time{}, start)
		if err != nil {
			b.Fatal(err)
		}
		if err := q.Finish(ctxb, id, OutcomeOK, ReasonAlreadyRunning, detail, start.Add(time.Millisecond)); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if h := q.Health(); h.Up || h.Pending != n+1 {
		b.Fatalf("health %+v after %d runs", h, n)
	}
	if n >= 1000 {
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "B/waiting-row")
	}
}

// BenchmarkQueueUp is the same run through a Queue whose ledger takes
// writes: the Store's two commits, plus the queue's bookkeeping.
func BenchmarkQueueUp(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "svc-ctl.db"), Options{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	q := NewQueue(s, QueueOptions{SpillDirs: []string{b.TempDir()}})
	detail := map[string]any{"message": "already-running", "state": "healthy"}
	n := 0
	for b.Loop() {
		start := t0.Add(time.Duration(n) * time.Second)
		id, err := q.Begin(ctxb, "watchdog:web", TriggerSchedule, time.Time{}, start)
		if err != nil {
			b.Fatal(err)
		}
		if err := q.Finish(ctxb, id, OutcomeOK, ReasonAlreadyRunning, detail, start.Add(time.Millisecond)); err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// BenchmarkQueueFlush10k is the recovery: 10,000 rows that waited, written
// in order (one commit each) once the ledger takes writes again.
func BenchmarkQueueFlush10k(b *testing.B) {
	b.StopTimer()
	for range b.N {
		s, err := Open(filepath.Join(b.TempDir(), "svc-ctl.db"), Options{Logger: quietLogger()})
		if err != nil {
			b.Fatal(err)
		}
		s.w.Exec("PRAGMA query_only = ON")
		q := NewQueue(s, QueueOptions{SpillDirs: []string{b.TempDir()}})
		for i := range DefaultQueueMax {
			q.Record(ctxb, Run{JobID: "watchdog:web", Trigger: TriggerSchedule, StartedAt: t0.Add(time.Duration(i) * time.Second),
				Outcome: OutcomeOK, Reason: ReasonAlreadyRunning})
		}
		s.w.Exec("PRAGMA query_only = OFF")
		b.StartTimer()
		if !q.Flush(ctxb) {
			b.Fatal("flush failed")
		}
		b.StopTimer()
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/10k-rows")
}
