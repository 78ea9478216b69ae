package benchkit

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// client keeps connections alive. Polling every millisecond with a fresh
// connection each time would leave thousands of sockets in TIME_WAIT, and
// the agent's pre-restart snapshot lists the host's sockets (proc.FactsOf),
// so the benchmark would slow down what it measures. A kept connection to a
// killed instance fails and the next poll dials the new one; callers that
// must know which instance answered ask /pid.
var client = &http.Client{
	Timeout: time.Second,
	Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     30 * time.Second,
	},
}

// get fetches http://addr+path and returns the status and body.
func get(ctx context.Context, addr, path string, timeout time.Duration) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b), err
}

// Healthy reports whether addr's /health answers 200 within timeout.
func Healthy(ctx context.Context, addr string, timeout time.Duration) bool {
	code, _, err := get(ctx, addr, "/health", timeout)
	return err == nil && code == http.StatusOK
}

// PIDOf asks testsvc at addr for its PID (/pid).
func PIDOf(ctx context.Context, addr string) (int, error) {
	code, body, err := get(ctx, addr, "/pid", time.Second)
	if err != nil {
		return 0, err
	}
	if code != http.StatusOK {
		return 0, fmt.Errorf("GET %s/pid: status %d", addr, code)
	}
	return strconv.Atoi(strings.TrimSpace(body))
}

// Control calls a testsvc control endpoint (/control/hang, ...).
func Control(ctx context.Context, addr, what string) error {
	code, _, err := get(ctx, addr, "/control/"+what, time.Second)
	if err != nil {
		return fmt.Errorf("control %s on %s: %w", what, addr, err)
	}
	if code != http.StatusOK {
		return fmt.Errorf("control %s on %s: status %d", what, addr, code)
	}
	return nil
}

// WaitHealthy polls /health every `every` until it answers 200 or ctx ends,
// and returns when it first did. Each poll is bounded by `probe`.
func WaitHealthy(ctx context.Context, addr string, every, probe time.Duration) (time.Time, error) {
	var at time.Time
	err := PollUntil(ctx, every, addr+" healthy", func() bool {
		if Healthy(ctx, addr, probe) {
			at = time.Now()
			return true
		}
		return false
	})
	return at, err
}

// WaitAllHealthy waits until every addr answers 200, up to d.
func WaitAllHealthy(ctx context.Context, addrs []string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for _, a := range addrs {
		if _, err := WaitHealthy(ctx, a, 10*time.Millisecond, 500*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// WaitNewInstance polls until addr answers from a process other than old,
// then until its /health is 200, and returns that process and the moment it
// answered 200. /pid is polled rather than /health so that a hung instance
// cannot hold a poll for its whole timeout. Polls are 1 ms apart, over
// kept-alive connections.
func WaitNewInstance(ctx context.Context, addr string, old int, timeout time.Duration) (int, time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var pid int
	err := PollUntil(ctx, time.Millisecond, "a new instance on "+addr, func() bool {
		p, err := PIDOf(ctx, addr)
		if err != nil || p == old {
			return false
		}
		pid = p
		return true
	})
	if err != nil {
		return 0, time.Time{}, err
	}
	at, err := WaitHealthy(ctx, addr, time.Millisecond, 200*time.Millisecond)
	return pid, at, err
}
