package probe

import (
	"context"
)

// probeTCP is healthy when a TCP connection to s.Target (host:port) is
// established before the deadline. It proves something listens, not that it
// answers: pair it with http or exec for that.
func probeTCP(ctx context.Context, s Spec) Result {
	t := &tracker{}
	conn, err := trackedDial(t)(ctx, "tcp", s.Target)
	if err != nil {
		return unhealthy("%s", netReason(ctx, s, err, t.phase()))
	}
	defer conn.Close()
	return Result{Healthy: true, Detail: map[string]any{"remote": conn.RemoteAddr().String()}}
}
