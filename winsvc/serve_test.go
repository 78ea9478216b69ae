package winsvc

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// reports collects what serve reported, safe for the serve goroutine.
type reports struct {
	mu sync.Mutex
	s  []status
}

func (r *reports) add(s status) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s = append(r.s, s)
}

func (r *reports) snapshot() []status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]status(nil), r.s...)
}

func TestServeStopCancelsAndWaitsForDrain(t *testing.T) {
	stop := make(chan struct{})
	release := make(chan struct{}) // the "drain" ends when the test says so
	canceled := make(chan struct{})
	run := func(ctx context.Context) error {
		<-ctx.Done()
		close(canceled)
		<-release
		return ctx.Err()
	}
	var rep reports
	errc := make(chan error, 1)
	go func() { errc <- serve(run, stop, rep.add, time.Millisecond) }()

	testutil.WaitFor(t, 10*time.Second, "running report", func() bool { return len(rep.snapshot()) > 0 })
	if got := rep.snapshot()[0]; got.phase != phaseRunning {
		t.Fatalf("first report = %+v, want running", got)
	}
	close(stop)
	<-canceled
	// While run drains, the checkpoint must keep advancing: that is what keeps
	// the SCM waiting longer than one WaitHint.
	testutil.WaitFor(t, 10*time.Second, "three stop-pending reports", func() bool { return len(rep.snapshot()) >= 4 })
	select {
	case err := <-errc:
		t.Fatalf("serve returned before run finished draining: %v", err)
	default:
	}
	close(release)
	if err := <-errc; err != nil {
		t.Fatalf("serve after a clean drain = %v, want nil", err)
	}
	got := rep.snapshot()
	for i, s := range got[1:] {
		if s.phase != phaseStopPending || s.checkpoint != uint32(i+1) || s.waitHint <= 0 {
			t.Errorf("report %d = %+v, want stop-pending, checkpoint %d, a wait hint", i+1, s, i+1)
		}
	}
}

func TestServeRunEndingUnaskedIsAFailure(t *testing.T) {
	boom := errors.New("database is locked")
	for _, runErr := range []error{nil, boom} {
		var rep reports
		err := serve(func(context.Context) error { return runErr }, make(chan struct{}), rep.add, time.Millisecond)
		if !errors.Is(err, errStoppedUnasked) {
			t.Errorf("run returned %v unasked: serve = %v, want errStoppedUnasked (so the SCM restarts it)", runErr, err)
		}
		if runErr != nil && !errors.Is(err, boom) {
			t.Errorf("serve = %v, lost run's error %v", err, boom)
		}
	}
}

func TestServeDrainErrorIsReturned(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	bad := errors.New("could not close the database")
	run := func(ctx context.Context) error { <-ctx.Done(); return bad }
	var rep reports
	if err := serve(run, stop, rep.add, time.Millisecond); !errors.Is(err, bad) {
		t.Fatalf("serve = %v, want %v", err, bad)
	}
}
