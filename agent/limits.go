package agent

import (
	"context"

	"svcctl/config"
	"svcctl/runtrace"
	"svcctl/watchdog"
)

// limitLoop samples a service with [service.limits] between its cycles, at
// least every 10 s (watchdog.LimitSampleEvery): a cycle every `interval`
// would let a leak run for ten minutes past its `for`. A breach that is
// not held by its backoff asks for a cycle at once, which samples again and
// restarts the service with cause resource-limit.
func (a *Agent) limitLoop(ctx context.Context, svc *config.Service) {
	name := svc.Name
	every(ctx, watchdog.LimitSampleEvery(svc.Limits), func(context.Context) {
		if b, held := a.sup.SampleLimits(name); b != nil && !held {
			a.log.Info("service.over_limit", "service", name, "limit", b.Words)
			a.trigger(name, watchdog.Request{Trigger: runtrace.TriggerEvent, Cause: watchdog.CauseResourceLimit, Why: b.Words})
		}
	})
}
