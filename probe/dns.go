package probe

import (
	"context"
	"errors"
	"net"
)

// maxAddrs caps the addresses kept in Detail: a name with hundreds of
// records should not bloat the run_trace row.
const maxAddrs = 16

// probeDNS is healthy when s.Target (a host, or host:port whose port is
// ignored) resolves to at least one address.
func probeDNS(ctx context.Context, s Spec) Result {
	host := s.Target
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "" {
		return unhealthy("no host to resolve")
	}
	addrs, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(err) {
			return unhealthy("%s", timeoutReason(s, "no answer from the resolver"))
		}
		return unhealthy("%s", netReason(ctx, s, err, phaseDial))
	}
	if len(addrs) == 0 {
		return unhealthy("%s resolved to no address", host)
	}
	d := map[string]any{"count": len(addrs)}
	if len(addrs) > maxAddrs {
		addrs = addrs[:maxAddrs]
	}
	d["addresses"] = addrs
	return Result{Healthy: true, Detail: d}
}
