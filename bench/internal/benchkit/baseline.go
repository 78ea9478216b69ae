package benchkit

import (
	"context"
	"fmt"
	"os/exec"
	"time"
)

// ServiceStart times one plain start of testsvc, without svc-ctl: from the
// fork until /health answers 200 (polled every millisecond). It is the
// service's own start time that svc-ctl's recovery figures are compared to.
func ServiceStart(ctx context.Context, testsvc string) (time.Duration, error) {
	addrs, err := FreeAddrs(1)
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(testsvc, "--addr", addrs[0])
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start testsvc: %w", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	at, err := WaitHealthy(ctx, addrs[0], time.Millisecond, 200*time.Millisecond)
	if err != nil {
		return 0, err
	}
	return at.Sub(start), nil
}

// ServiceStarts runs ServiceStart n times and summarises it in ms.
func ServiceStarts(ctx context.Context, testsvc string, n int) (Summary, error) {
	xs := make([]float64, 0, n)
	for range n {
		d, err := ServiceStart(ctx, testsvc)
		if err != nil {
			return Summary{}, err
		}
		xs = append(xs, Ms(d))
	}
	return Summarize(xs), nil
}
