package agent

import (
	"context"
	"errors"
	"net/http"

	"svcctl/metrics"
)

// serveMetrics serves /metrics and /healthz on metrics_listen until ctx
// ends, each request under the L2 net.
func (a *Agent) serveMetrics(ctx context.Context) error {
	srv, ln, err := metrics.Listen(a.config().Agent.MetricsListen, a.net.RecoverHTTP(a.metricsHandler), fdLimit(), a.log)
	if err != nil {
		return err
	}
	a.net.GoOnce("metrics-close", func() {
		<-ctx.Done()
		srv.Close()
	}, nil)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
