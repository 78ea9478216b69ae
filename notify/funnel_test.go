package notify

import (
	"errors"
	"sync"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

type recordingObserver struct {
	mu       sync.Mutex
	started  []int64
	finished []runtrace.Run
}

func (o *recordingObserver) RunStarted(_ string, _ runtrace.Trigger, id int64) {
	o.mu.Lock()
	o.started = append(o.started, id)
	o.mu.Unlock()
}

func (o *recordingObserver) RunFinished(r runtrace.Run) {
	o.mu.Lock()
	o.finished = append(o.finished, r)
	o.mu.Unlock()
}

// TestFunnel: a run passes the funnel once: its row, its events (in one
// transaction), the sender woken, every observer told, in that order; a
// verdict refused (already finished) tells nobody.
func TestFunnel(t *testing.T) {
	cfg := cfgWith(config.Notify{Name: "hook", Kind: config.NotifyWebhook, URL: "http://127.0.0.1:1", Timeout: time.Second})
	s := newStore(t)
	f := NewFunnel(s, NewDeriver(cfg, "ws-07", time.UTC))
	obs := &recordingObserver{}
	f.Observe(obs)
	woken := 0
	f.OnQueued(func() { woken++ })
	id, err := f.Begin(ctxb, "watchdog:proxy", runtrace.TriggerSchedule, time.Time{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(ctxb, id, runtrace.OutcomeFailed, runtrace.ReasonStartFailed, map[string]any{"state": "backoff"}, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if len(obs.started) != 1 || obs.started[0] != id || len(obs.finished) != 1 || obs.finished[0].ID != id ||
		obs.finished[0].JobID != "watchdog:proxy" || obs.finished[0].Outcome != runtrace.OutcomeFailed {
		t.Errorf("observer saw %+v / %+v", obs.started, obs.finished)
	}
	if woken != 1 || counts(t, s)[runtrace.DeliveryPending] != 1 {
		t.Errorf("woken %d times, deliveries %v", woken, counts(t, s))
	}
	err = f.Finish(ctxb, id, runtrace.OutcomeOK, runtrace.ReasonStarted, nil, t0.Add(2*time.Second))
	if !errors.Is(err, runtrace.ErrAlreadyFinished) || len(obs.finished) != 1 || woken != 1 {
		t.Errorf("second finish: %v, observers told %d times, woken %d", err, len(obs.finished), woken)
	}
	// A healthy cycle raises nothing and wakes nobody, but observers hear of it.
	id2, _ := f.Begin(ctxb, "watchdog:db", runtrace.TriggerSchedule, time.Time{}, t0)
	if err := f.Finish(ctxb, id2, runtrace.OutcomeOK, runtrace.ReasonAlreadyRunning, nil, t0); err != nil {
		t.Fatal(err)
	}
	if woken != 1 || len(obs.finished) != 2 {
		t.Errorf("healthy cycle: woken %d, finished %d", woken, len(obs.finished))
	}
}
