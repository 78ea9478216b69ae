package metrics

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// Bounds of the metrics server. A scraper needs one connection every few
// seconds; everything past that is a misbehaving client or a flood, and each
// connection is a descriptor that supervision (spawns, log files, probes, the
// ledger) would otherwise run out of.
const (
	metricsReadHeaderTimeout = 5 * time.Second
	metricsReadTimeout       = 10 * time.Second
	metricsWriteTimeout      = 10 * time.Second
	metricsIdleTimeout       = 30 * time.Second
	metricsMaxHeaderBytes    = 8 << 10
	// metricsMaxConns caps the open connections; at most 1/metricsFDShare
	// of the descriptor limit, so the rest stays in reserve for supervision.
	metricsMaxConns = 64
	metricsMinConns = 4
	metricsFDShare  = 8
)

// connCap is how many connections the metrics server holds open at
// once: min(64, nofile/8), at least 4. Past it, new connections wait in the
// kernel's accept queue, where they cost the agent no descriptor.
func connCap(nofile uint64) int {
	if nofile == 0 {
		return metricsMaxConns // unknown (Windows has no per-process descriptor limit to speak of)
	}
	return int(max(metricsMinConns, min(metricsMaxConns, nofile/metricsFDShare)))
}

// Listen opens addr (metrics_listen) for a server of h with the bounds
// above; the caller serves on the listener and closes the server. A port
// already taken is a loud error, not a silent lack of metrics. nofile is the
// descriptor limit (0: unknown).
func Listen(addr string, h http.Handler, nofile uint64, log *slog.Logger) (*http.Server, net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics_listen %s: %w", addr, err)
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		log.Warn("metrics.not_loopback", "addr", ln.Addr().String(), "hint", "the metrics are readable by anyone who can reach this address")
	}
	conns := connCap(nofile)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: metricsReadHeaderTimeout,
		ReadTimeout:       metricsReadTimeout,
		WriteTimeout:      metricsWriteTimeout,
		IdleTimeout:       metricsIdleTimeout,
		MaxHeaderBytes:    metricsMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	log.Info("metrics.listening", "addr", ln.Addr().String(), "max_conns", conns)
	return srv, netutil.LimitListener(ln, conns), nil
}

// Handler is /metrics (the counters, in Prometheus' text format) and
// /healthz (503 while the agent drains).
func Handler(c *Counters, draining func() bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		c.Write(w)
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if draining() {
			http.Error(w, "draining", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	return mux
}
