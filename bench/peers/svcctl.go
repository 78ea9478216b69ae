package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
)

// svcctl runs the real `svc-ctl agent` with one service: interval 1s, an
// HTTP check with timeout 2s, confirm 0s (restart on the first failure, as
// monit here).
type svcctl struct{}

func (s *svcctl) name() string { return "svc-ctl" }

func (s *svcctl) settings() string {
	return "interval 1 s; HTTP check of /health, timeout 2 s, confirm 0 s; exit of its child wakes a cycle"
}

// armed: the cycle that started the instance finishes within a few ms of
// its first healthy probe; 2 s keeps the trials as far apart as the others'.
func (s *svcctl) armed() time.Duration { return 2 * time.Second }

func (s *svcctl) prepare(ctx context.Context, e *env) (string, error) {
	out, err := toolOutput(ctx, e.bins.SvcCtl, "version")
	if err != nil {
		return "", err
	}
	v := strings.TrimPrefix(strings.TrimSpace(out), "svc-ctl ")
	// The build settings say whether it links libc (cgo), which moves RSS.
	if info, err := toolOutput(ctx, "go", "version", "-m", e.bins.SvcCtl); err == nil {
		for _, l := range strings.Split(info, "\n") {
			if _, kv, ok := strings.Cut(l, "build\t"); ok && strings.HasPrefix(kv, "CGO_ENABLED=") {
				v += ", " + kv
			}
		}
	}
	return v, nil
}

func (s *svcctl) start(ctx context.Context, e *env, addr string) (*instance, error) {
	su, err := e.k.WriteConfig("svc-ctl", e.bins.TestSvc, nil,
		[]benchkit.Service{{Name: "web", Addr: addr, Interval: "1s", Timeout: "2s", Confirm: "0s"}}, nil)
	if err != nil {
		return nil, err
	}
	a, err := e.k.StartAgent(e.bins.SvcCtl, su, 100*time.Millisecond)
	if err != nil {
		return nil, err
	}
	return e.newInstance(addr, []int{a.PID}, func() error {
		err := a.Stop(30 * time.Second)
		// The agent leaves its services running (by design).
		benchkit.KillRecorded(su.State)
		if err != nil {
			return fmt.Errorf("%w (agent stderr: %s)", err, a.Stderr())
		}
		return nil
	}), nil
}
