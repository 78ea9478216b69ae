package probe

import (
	"context"
	"net"
	"testing"
	"time"
)

func TestTCPHealthy(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := run(Spec{Kind: KindTCP, Target: ln.Addr().String(), Timeout: 2 * time.Second})
	wantHealthy(t, r)
	if r.Kind != KindTCP || r.Target != ln.Addr().String() {
		t.Fatalf("kind/target = %q/%q", r.Kind, r.Target)
	}
	if r.Detail["remote"] != ln.Addr().String() {
		t.Fatalf("detail remote = %v, want %s", r.Detail["remote"], ln.Addr())
	}
	if r.Latency <= 0 || r.LatencyMS != float64(r.Latency.Microseconds())/1000 {
		t.Fatalf("latency %v / %vms not filled", r.Latency, r.LatencyMS)
	}
}

func TestTCPRefused(t *testing.T) {
	t.Parallel()
	r := run(Spec{Kind: KindTCP, Target: closedAddr(t), Timeout: 2 * time.Second})
	wantUnhealthy(t, r, "connection refused")
}

func TestTCPCanceledByCaller(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := Run(ctx, Spec{Kind: KindTCP, Target: holdListener(t), Timeout: 2 * time.Second})
	wantUnhealthy(t, r, "canceled before a verdict")
}
