// Command collector is an OpenTelemetry Collector built from the
// collector's own modules for svc-ctl's end-to-end test: the OTLP receiver
// and a test exporter, "jsonfile", that appends each request it is given,
// as OTLP/JSON, one line per request, to a file, before the receiver
// answers (so what the agent was told was accepted is on disk).
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func main() {
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "e2e-collector", Description: "svc-ctl's e2e collector", Version: "test"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{ResolverSettings: confmap.ResolverSettings{
			ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
			DefaultScheme:     "file",
		}},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func factories() (otelcol.Factories, error) {
	var f otelcol.Factories
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap(otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	f.Exporters, err = otelcol.MakeFactoryMap(newJSONFileFactory())
	f.Telemetry = otelconftelemetry.NewFactory()
	return f, err
}

// jsonFileConfig is the exporter's config: where to append.
type jsonFileConfig struct {
	Path string `mapstructure:"path"`
}

func newJSONFileFactory() exporter.Factory {
	return exporter.NewFactory(component.MustNewType("jsonfile"),
		func() component.Config { return &jsonFileConfig{} },
		exporter.WithLogs(func(_ context.Context, _ exporter.Settings, c component.Config) (exporter.Logs, error) {
			return openJSONFile(c.(*jsonFileConfig).Path)
		}, component.StabilityLevelDevelopment),
		exporter.WithMetrics(func(_ context.Context, _ exporter.Settings, c component.Config) (exporter.Metrics, error) {
			return openJSONFile(c.(*jsonFileConfig).Path)
		}, component.StabilityLevelDevelopment))
}

// jsonFile is one exporter instance; logs and metrics share the file (a
// line says which it is by its first key).
type jsonFile struct {
	path string
	mu   *sync.Mutex
}

var fileLock sync.Mutex

func openJSONFile(path string) (*jsonFile, error) {
	if path == "" {
		return nil, fmt.Errorf("jsonfile: path is required")
	}
	return &jsonFile{path: path, mu: &fileLock}, nil
}

func (j *jsonFile) Start(context.Context, component.Host) error { return nil }
func (j *jsonFile) Shutdown(context.Context) error              { return nil }
func (j *jsonFile) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

func (j *jsonFile) ConsumeLogs(_ context.Context, ld plog.Logs) error {
	b, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	if err != nil {
		return err
	}
	return j.append(b)
}

func (j *jsonFile) ConsumeMetrics(_ context.Context, md pmetric.Metrics) error {
	b, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
	if err != nil {
		return err
	}
	return j.append(b)
}

// append writes one line and syncs it: a collector killed after it
// answered keeps what it answered for.
func (j *jsonFile) append(b []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	f, err := os.OpenFile(j.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Sync()
}
