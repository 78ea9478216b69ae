package probe

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDNSLocalhost(t *testing.T) {
	t.Parallel()
	r := run(Spec{Kind: KindDNS, Target: "localhost", Timeout: 5 * time.Second})
	wantHealthy(t, r)
	addrs, _ := r.Detail["addresses"].([]string)
	if !slices.Contains(addrs, "127.0.0.1") && !slices.Contains(addrs, "::1") {
		t.Fatalf("localhost resolved to %v, want a loopback address", addrs)
	}
	// host:port is accepted, the port ignored
	wantHealthy(t, run(Spec{Kind: KindDNS, Target: "localhost:8789", Timeout: 5 * time.Second}))
}

func TestDNSReservedInvalid(t *testing.T) {
	t.Parallel()
	r := run(Spec{Kind: KindDNS, Target: "nothing-here.invalid", Timeout: 5 * time.Second})
	if r.Healthy || !strings.Contains(r.Reason, "nothing-here.invalid") {
		t.Fatalf("healthy=%v reason %q, want unhealthy naming the host", r.Healthy, r.Reason)
	}
	wantUnhealthy(t, run(Spec{Kind: KindDNS, Timeout: time.Second}), "no host to resolve")
}
