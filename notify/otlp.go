package notify

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"svcctl/config"
	"svcctl/internal/fsutil"
	"svcctl/internal/hostid"
	"svcctl/state"
)

// The otlp channel speaks OTLP/HTTP (protobuf or JSON) to an OpenTelemetry
// Collector: events and run rows as log records on /v1/logs, the agent's
// counters as metrics on /v1/metrics. The wire types are those of
// go.opentelemetry.io/proto/otlp, and only its message packages: a request
// is sent as LogsData / MetricsData, which are ExportLogsServiceRequest /
// ExportMetricsServiceRequest field for field (both: `repeated
// ResourceLogs resource_logs = 1`), while the collector/* packages would
// link gRPC and its gateway into the agent (about 10 MB) for two types it
// never calls. No SDK exporter either: their in-memory retry would fight
// the outbox, which is what makes delivery survive a SIGKILL.
//
// Attributes are a contract (docs/fleet.md, "Attributes"): change one and
// every fleet's queries break.

// Identity is who is sending, as the resource of everything an otlp channel
// exports. It is the same for the whole process: SetIdentity, once.
type Identity struct {
	Version    string // service.version
	InstanceID string // service.instance.id: a UUID kept in the state dir
	HostName   string // host.name
	HostID     string // host.id: the OS's machine id, else one kept in the state dir
}

var identity atomic.Pointer[Identity]

// SetIdentity sets what every otlp channel of this process says it is.
func SetIdentity(id Identity) { identity.Store(&id) }

func currentIdentity() Identity {
	if id := identity.Load(); id != nil {
		return *id
	}
	host, _ := os.Hostname()
	return Identity{HostName: host}
}

// IdentityOf reads the ids kept under the state dir of paths; create (the
// agent, which holds the agent lock) makes them the first time. Errors
// leave an id empty: a resource without it is still worth sending, and
// the caller logs why.
func IdentityOf(paths state.Paths, version string, create bool) (Identity, error) {
	host, _ := os.Hostname()
	id := Identity{Version: version, HostName: host}
	var errs []error
	var err error
	if create {
		id.InstanceID, err = hostid.Persisted(paths.ServiceInstanceID())
	} else {
		id.InstanceID, err = hostid.Read(paths.ServiceInstanceID())
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("service.instance.id: %w", err))
	}
	if id.HostID, _, err = hostid.Get(paths.HostID(), create); err != nil {
		errs = append(errs, fmt.Errorf("host.id: %w", err))
	}
	return id, errors.Join(errs...)
}

// osType is OpenTelemetry's os.type for this build.
func osType() string {
	if runtime.GOOS == "darwin" {
		return "darwin"
	}
	return runtime.GOOS
}

// otlpChannel is one [[notify]] kind = "otlp".
type otlpChannel struct {
	conf   config.Notify
	base   string
	client *http.Client
	header http.Header
}

func openOTLP(n *config.Notify) (Channel, error) { return newOTLPChannel(n) }

func newOTLPChannel(n *config.Notify) (*otlpChannel, error) {
	tr := httpClient.Transport.(*http.Transport).Clone()
	tc, err := otlpTLS(&n.OTLP)
	if err != nil {
		return nil, err
	}
	tr.TLSClientConfig = tc
	h := http.Header{}
	for k, v := range n.OTLP.Headers {
		h.Set(k, v)
	}
	for k, v := range n.OTLP.FileHeaders {
		h.Set(k, v)
	}
	if n.OTLP.Encoding == config.OTLPJSON {
		h.Set("Content-Type", "application/json")
	} else {
		h.Set("Content-Type", "application/x-protobuf")
	}
	if n.OTLP.Gzip {
		h.Set("Content-Encoding", "gzip")
	}
	return &otlpChannel{conf: *n, base: strings.TrimRight(n.URL, "/"), header: h,
		client: &http.Client{Transport: tr, CheckRedirect: httpClient.CheckRedirect}}, nil
}

// otlpTLS is the TLS of a channel: its CA instead of the system's, its
// client certificate for mTLS. Files are read without following a link.
func otlpTLS(o *config.OTLP) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		b, err := fsutil.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("ca_file %s holds no PEM certificate", o.CAFile)
		}
		tc.RootCAs = pool
	}
	if o.CertFile != "" {
		cert, err := fsutil.ReadFile(o.CertFile)
		if err != nil {
			return nil, fmt.Errorf("cert_file: %w", err)
		}
		key, err := fsutil.ReadFile(o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("key_file: %w", err)
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("cert_file and key_file: %w", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// Send exports one event as one log record (`svc-ctl notify test`, and the
// direct sends made when the outbox itself is down). The agent's exporter
// sends the outbox in batches instead (otlpExporter).
func (o *otlpChannel) Send(ctx context.Context, e *Event) error {
	rec := eventRecord(e, time.Now())
	_, err := o.exportLogs(ctx, []*logspb.LogRecord{rec})
	return err
}

// resource is the resource every export carries.
func (o *otlpChannel) resource() *resourcepb.Resource {
	id := currentIdentity()
	attrs := []*commonpb.KeyValue{
		str("service.name", "svc-ctl"),
		str("service.version", id.Version),
		str("service.instance.id", id.InstanceID),
		str("host.name", id.HostName),
		str("host.id", id.HostID),
		str("os.type", osType()),
	}
	for _, k := range sortedKeys(o.conf.OTLP.ResourceAttributes) {
		attrs = append(attrs, str(k, o.conf.OTLP.ResourceAttributes[k]))
	}
	return &resourcepb.Resource{Attributes: nonEmptyAttrs(attrs)}
}

// scope names svc-ctl as the instrumentation that made the records.
func scope() *commonpb.InstrumentationScope {
	return &commonpb.InstrumentationScope{Name: "svc-ctl", Version: currentIdentity().Version}
}

// partial is an OTLP partial success: what the collector took but refused.
type partial struct {
	Rejected int64
	Message  string
}

// exportLogs sends records as one request and reads its partial success.
func (o *otlpChannel) exportLogs(ctx context.Context, recs []*logspb.LogRecord) (partial, error) {
	msg := &logspb.LogsData{ResourceLogs: []*logspb.ResourceLogs{{
		Resource:  o.resource(),
		ScopeLogs: []*logspb.ScopeLogs{{Scope: scope(), LogRecords: recs}},
	}}}
	return o.export(ctx, "/v1/logs", msg, "rejectedLogRecords")
}

// export marshals msg, sends it to base+path and reads the answer.
// rejectedKey is the JSON name of the rejected count in the answer.
func (o *otlpChannel) export(ctx context.Context, path string, msg proto.Message, rejectedKey string) (partial, error) {
	body, err := o.marshal(msg)
	if err != nil {
		return partial{}, Permanent(err)
	}
	ans, err := postWith(ctx, o.client, o.base+path, o.header, body, 64<<10)
	if err != nil {
		return partial{}, err
	}
	return o.readPartial(ans, rejectedKey), nil
}

func (o *otlpChannel) marshal(msg proto.Message) ([]byte, error) {
	var b []byte
	var err error
	if o.conf.OTLP.Encoding == config.OTLPJSON {
		// OTLP/JSON: lowerCamelCase names (protojson's default), enums as
		// numbers, 64-bit integers as strings (protojson's default).
		b, err = protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(msg)
	} else {
		b, err = proto.Marshal(msg)
	}
	if err != nil || !o.conf.OTLP.Gzip {
		return b, err
	}
	var buf bytes.Buffer
	// BestSpeed: its compressor is a fraction of the default level's
	// (about 0.8 MiB a request, which an idle agent's heap then keeps), and
	// on requests of a few KiB it compresses nearly as well.
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readPartial reads partial_success from an export's answer (field 1 of
// Export*ServiceResponse: rejected count = 1, error_message = 2). An answer
// it cannot read is taken as a full success: the collector said 2xx.
func (o *otlpChannel) readPartial(ans []byte, rejectedKey string) partial {
	if len(ans) == 0 {
		return partial{}
	}
	if o.conf.OTLP.Encoding == config.OTLPJSON {
		var j struct {
			PartialSuccess map[string]json.RawMessage `json:"partialSuccess"`
		}
		if json.Unmarshal(ans, &j) != nil || j.PartialSuccess == nil {
			return partial{}
		}
		var p partial
		if raw, ok := j.PartialSuccess[rejectedKey]; ok {
			p.Rejected, _ = strconv.ParseInt(strings.Trim(string(raw), `"`), 10, 64)
		}
		if raw, ok := j.PartialSuccess["errorMessage"]; ok {
			_ = json.Unmarshal(raw, &p.Message)
		}
		return p
	}
	ps := protoField(ans, 1)
	if ps == nil {
		return partial{}
	}
	var p partial
	for b := ps; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return p
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return p
			}
			p.Rejected, b = int64(v), b[m:]
		case num == 2 && typ == protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return p
			}
			p.Message, b = string(v), b[m:]
		default:
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return p
			}
			b = b[m:]
		}
	}
	return p
}

// protoField returns the bytes of the length-delimited field num of b.
func protoField(b []byte, num protowire.Number) []byte {
	for len(b) > 0 {
		n, typ, m := protowire.ConsumeTag(b)
		if m < 0 {
			return nil
		}
		b = b[m:]
		if n == num && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b)
			return v
		}
		m = protowire.ConsumeFieldValue(n, typ, b)
		if m < 0 {
			return nil
		}
		b = b[m:]
	}
	return nil
}
