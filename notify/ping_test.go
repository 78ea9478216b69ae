package notify

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

// TestPinger: a job pings /start, then its verdict; a service pings after a
// healthy cycle and /fail when down; nothing for a paused service. Results
// are kept as the ping's channel state.
func TestPinger(t *testing.T) {
	rc := newReceiver(t, nil)
	cfg := cfgWith()
	cfg.Jobs[0].Ping = rc.srv.URL + "/ping/job-uuid"
	cfg.Services = []config.Service{{Name: "proxy", Ping: rc.srv.URL + "/ping/svc-uuid",
		Env: map[string]string{"API_TOKEN": "tok_9f8e7d6c5b4a"}}}
	s := newStore(t)
	p := NewPinger(cfg, s, nil)
	p.RunStarted("job:pull", runtrace.TriggerSchedule, 7)
	p.Wait()
	p.RunFinished(runtrace.Run{ID: 7, JobID: "job:pull", Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonExitNonzero,
		Detail: json.RawMessage(`{"exit_code":2,"output_tail":["using tok_9f8e7d6c5b4a","fetch: 502 Bad Gateway"]}`)})
	p.Wait()
	p.RunFinished(runtrace.Run{ID: 8, JobID: "watchdog:proxy", Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonAlreadyRunning})
	p.Wait()
	p.RunFinished(runtrace.Run{ID: 9, JobID: "watchdog:proxy", Outcome: runtrace.OutcomeSkipped, Reason: runtrace.ReasonPaused})
	p.RunFinished(runtrace.Run{ID: 10, JobID: "watchdog:proxy", Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonStartFailed,
		Detail: json.RawMessage(`{"probe":[{"kind":"tcp","target":"127.0.0.1:8789","healthy":false,"reason":"connection refused"}]}`)})
	p.Wait()
	got := rc.got()
	var paths []string
	for _, r := range got {
		paths = append(paths, r.Path)
	}
	want := []string{"/ping/job-uuid/start", "/ping/job-uuid/fail", "/ping/svc-uuid", "/ping/svc-uuid/fail"}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("pings %v, want %v", paths, want)
	}
	if rid := got[0].Header.Get("Idempotency-Key"); rid != "job:pull/7" || got[1].Header.Get("Idempotency-Key") != rid {
		t.Errorf("start and end not paired: %q %q", rid, got[1].Header.Get("Idempotency-Key"))
	}
	body := string(got[1].Body)
	if !strings.Contains(body, "failed/exit-nonzero") || !strings.Contains(body, "fetch: 502 Bad Gateway") ||
		strings.Contains(body, "tok_9f8e7d6c5b4a") {
		t.Errorf("fail body %q", body)
	}
	if !strings.Contains(string(got[3].Body), "tcp 127.0.0.1:8789: connection refused") {
		t.Errorf("service fail body %q", got[3].Body)
	}
	cs, _ := s.ChannelStates(ctxb)
	if len(cs) != 2 || cs[0].Channel != "ping:job:pull" || cs[0].LastOK.IsZero() {
		t.Errorf("ping channel states %+v", cs)
	}
}

func TestPingerRecordsFailure(t *testing.T) {
	rc := newReceiver(t, func(int, *http.Request) int { return 404 })
	cfg := cfgWith()
	cfg.Services = []config.Service{{Name: "proxy", Ping: rc.srv.URL + "/ping/gone"}}
	s := newStore(t)
	p := NewPinger(cfg, s, nil)
	p.timeout = time.Second
	p.RunFinished(runtrace.Run{ID: 1, JobID: "watchdog:proxy", Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonAlreadyRunning})
	p.Wait()
	cs, _ := s.ChannelStates(ctxb)
	if len(cs) != 1 || !strings.Contains(cs[0].LastError, "HTTP 404") || cs[0].FailingSince.IsZero() || rc.n.Load() != 1 {
		t.Errorf("state %+v after %d tries (a 404 is not retried)", cs, rc.n.Load())
	}
}
