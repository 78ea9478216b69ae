package agent

import (
	"context"

	"svcctl/config"
	"svcctl/logcap"
)

// logCap is the loop that holds every service's runtime log to its log_max
// (logcap), on the services in force, told of each spawn.
func (a *Agent) logCap() *logcap.Cap {
	return &logcap.Cap{
		Sup:      a.sup,
		Services: func() []config.Service { return a.config().Services },
		Every:    a.o.LogCheckEvery,
		Spawned:  a.logSpawned,
		Log:      a.log,
		Go:       func(ctx context.Context, name string, fn func(context.Context)) { a.net.GoSafe(ctx, name, fn) },
	}
}
