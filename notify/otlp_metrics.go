package notify

import (
	"context"
	"maps"
	"slices"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// MetricPoint is one value the agent counts, for an otlp channel's
// metrics: a counter (cumulative since the agent started, monotonic) or a
// gauge (the value now).
type MetricPoint struct {
	Name, Unit, Description string
	Attrs                   map[string]string
	Value                   int64
	Counter                 bool
}

// sendMetrics exports the agent's counters once. Not queued, not retried:
// they are cumulative, so the next export carries everything a lost one
// did (docs/fleet.md, "Metrics").
func (x *otlpExporter) sendMetrics(ctx context.Context) {
	if x.ch == nil || !x.s.opts.Now().After(x.until) {
		return // not open, or in a backoff: the next period says it all
	}
	points := x.points(ctx)
	if len(points) == 0 {
		return
	}
	msg := metricsData(x.ch, points, x.s.opts.Started, x.s.opts.Now())
	sctx, cancel := context.WithTimeout(ctx, x.conf.Timeout)
	defer cancel()
	p, err := x.ch.export(sctx, "/v1/metrics", msg, "rejectedDataPoints")
	if err != nil {
		x.log.Debug("otlp.metrics_failed", "err", err)
		return
	}
	x.partial(p, "data points")
}

// points are the agent's own counters (Options.Metrics) and the channel's:
// records exported by this process, the outbox's deliveries by state.
func (x *otlpExporter) points(ctx context.Context) []MetricPoint {
	var out []MetricPoint
	if x.s.opts.Metrics != nil {
		out = append(out, x.s.opts.Metrics()...)
	}
	for _, kind := range slices.Sorted(maps.Keys(x.exported)) {
		out = append(out, MetricPoint{Name: "svcctl.otlp.exported", Unit: "{record}", Counter: true,
			Description: "Log records this agent exported through the channel since it started.",
			Attrs:       map[string]string{"svcctl.channel": x.conf.Name, "svcctl.record": kind}, Value: x.exported[kind]})
	}
	if counts, err := x.s.store.CountDeliveries(ctx); err == nil {
		for _, st := range slices.Sorted(maps.Keys(counts)) {
			out = append(out, MetricPoint{Name: "svcctl.notify.deliveries", Unit: "{delivery}",
				Description: "Deliveries of events in the outbox, every channel, by state.",
				Attrs:       map[string]string{"svcctl.state": st}, Value: int64(counts[st])})
		}
	}
	return out
}

// metricsData groups points by name into metrics: sums cumulative since
// start, gauges at now.
func metricsData(ch *otlpChannel, points []MetricPoint, start, now time.Time) *metricspb.MetricsData {
	var ms []*metricspb.Metric
	byName := map[string]*metricspb.Metric{}
	for _, p := range points {
		dp := &metricspb.NumberDataPoint{TimeUnixNano: unixNano(now), Value: &metricspb.NumberDataPoint_AsInt{AsInt: p.Value}}
		for _, k := range slices.Sorted(maps.Keys(p.Attrs)) {
			dp.Attributes = append(dp.Attributes, &commonpb.KeyValue{Key: k,
				Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: p.Attrs[k]}}})
		}
		m := byName[p.Name]
		if m == nil {
			m = &metricspb.Metric{Name: p.Name, Unit: p.Unit, Description: p.Description}
			if p.Counter {
				m.Data = &metricspb.Metric_Sum{Sum: &metricspb.Sum{IsMonotonic: true,
					AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE}}
			} else {
				m.Data = &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{}}
			}
			byName[p.Name] = m
			ms = append(ms, m)
		}
		switch d := m.Data.(type) {
		case *metricspb.Metric_Sum:
			dp.StartTimeUnixNano = unixNano(start)
			d.Sum.DataPoints = append(d.Sum.DataPoints, dp)
		case *metricspb.Metric_Gauge:
			d.Gauge.DataPoints = append(d.Gauge.DataPoints, dp)
		}
	}
	return &metricspb.MetricsData{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource:     ch.resource(),
		ScopeMetrics: []*metricspb.ScopeMetrics{{Scope: scope(), Metrics: ms}},
	}}}
}
