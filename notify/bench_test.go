package notify

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// BenchmarkEventToWebhook: one failed cycle recorded (row and event in one
// transaction) until a loopback webhook has the event, with the agent's
// sender running and woken by the commit. Reports p50 and p90 from the
// moment the commit returned.
//
//	go test -run '^$' -bench EventToWebhook -benchtime 200x ./notify/
func BenchmarkEventToWebhook(b *testing.B) {
	got := make(chan time.Time, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- time.Now()
	}))
	defer srv.Close()
	cfg := cfgWith(config.Notify{Name: "hook", Kind: config.NotifyWebhook, URL: srv.URL, Timeout: 5 * time.Second})
	s, err := runtrace.Open(filepath.Join(b.TempDir(), "svc-ctl.db"), runtrace.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	d := NewDeriver(cfg, "bench", time.UTC)
	snd := NewSender(cfg, s, Options{Owner: "bench", Poll: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { snd.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		now := time.Now()
		if _, err := s.RecordEmit(context.Background(), runtrace.Run{JobID: fmt.Sprintf("watchdog:svc%d", i),
			Trigger: runtrace.TriggerSchedule, StartedAt: now, Outcome: runtrace.OutcomeFailed,
			Reason: runtrace.ReasonStartFailed}, d.Emit); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		snd.Wake()
		at := <-got
		lat = append(lat, at.Sub(committed))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
}

// BenchmarkDrain10k: 10,000 pending events (one channel, distinct
// subjects) drained to a loopback webhook. Reports the seconds per drain.
//
//	go test -run '^$' -bench Drain10k -benchtime 1x ./notify/
func BenchmarkDrain10k(b *testing.B) {
	const n = 10_000
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	cfg := cfgWith(config.Notify{Name: "hook", Kind: config.NotifyWebhook, URL: srv.URL, Timeout: 5 * time.Second})
	for range b.N {
		b.StopTimer()
		s, err := runtrace.Open(filepath.Join(b.TempDir(), "svc-ctl.db"), runtrace.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		d := NewDeriver(cfg, "bench", time.UTC)
		now := time.Now()
		var evs []runtrace.OutboxEvent
		for i := range n {
			evs = append(evs, d.Agent(fmt.Sprintf("event %d", i), "", now.Add(time.Duration(i)*time.Microsecond)))
			evs[i].Subject = fmt.Sprintf("agent%d", i)
		}
		if _, err := s.Emit(context.Background(), evs, nil); err != nil {
			b.Fatal(err)
		}
		snd := NewSender(cfg, s, Options{Owner: "bench"})
		b.StartTimer()
		start := time.Now()
		snd.Drain(context.Background())
		b.ReportMetric(time.Since(start).Seconds(), "s/drain")
		b.StopTimer()
		if c, _ := s.CountDeliveries(context.Background()); c[runtrace.DeliveryDelivered] != n {
			b.Fatalf("delivered %v, want %d", c, n)
		}
		s.Close()
	}
}
