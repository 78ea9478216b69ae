package notify

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// senderChild runs a Sender in a process of its own until it is killed:
// spec is "DBPATH|URL".
func senderChild(spec string) {
	path, url, _ := strings.Cut(spec, "|")
	s, err := runtrace.Open(path, runtrace.Options{Logger: quiet})
	if err != nil {
		os.Exit(3)
	}
	cfg := cfgWith(channelConf("hook", config.NotifyWebhook, url))
	cfg.Notify[0].Timeout = time.Hour // it must be killed in flight, not time out
	NewSender(cfg, s, Options{Owner: "child", Poll: 20 * time.Millisecond}).Run(context.Background())
}

// TestSIGKILLMidDelivery: a sender killed while its attempt is in flight
// leaves the event pending under its claim; the next sender (the restarted
// agent) releases the claim and delivers it. The receiver gets every id,
// and none twice, since no attempt that reached it was answered before.
func TestSIGKILLMidDelivery(t *testing.T) {
	var up atomic.Bool
	rc := newReceiver(t, func(int, *http.Request) int {
		if up.Load() {
			return http.StatusOK
		}
		return 0 // hang: the attempt stays in flight until the sender dies
	})
	path := t.TempDir() + "/svc-ctl.db"
	s := openStore(t, path)
	cfg := cfgWith(channelConf("hook", config.NotifyWebhook, rc.srv.URL))
	d := NewDeriver(cfg, "ws-07", time.UTC)
	for _, name := range []string{"proxy", "db"} {
		failRun(t, s, d, name, time.Now())
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), senderEnv+"="+path+"|"+rc.srv.URL)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the child's attempt to reach the receiver", func() bool { return rc.n.Load() >= 1 })
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup of any kind
		t.Fatal(err)
	}
	cmd.Wait()
	ds, _ := s.Deliveries(ctxb, 10, runtrace.DeliveryPending)
	if len(ds) != 2 {
		t.Fatalf("after the kill: %d pending, want 2", len(ds))
	}

	up.Store(true)
	snd := NewSender(cfg, s, Options{Owner: "restarted", Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(ctxb)
	done := make(chan struct{})
	go func() { snd.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	testutil.WaitFor(t, 10*time.Second, "delivery by the restarted sender", func() bool { return len(rc.got()) == 2 })
	seen := map[string]int{}
	for _, r := range rc.got() {
		seen[r.Header.Get("Idempotency-Key")]++
	}
	for _, x := range ds {
		if seen[x.EventID] != 1 {
			t.Errorf("event %s delivered %d times, want 1", x.EventID, seen[x.EventID])
		}
	}
	testutil.WaitFor(t, 5*time.Second, "the deliveries recorded", func() bool {
		return counts(t, s)[runtrace.DeliveryDelivered] == 2
	})
}
