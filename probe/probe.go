package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/internal/runas"
)

// Probe kinds: the keys of the kinds table and the values of Spec.Kind.
const (
	KindTCP  = "tcp"
	KindHTTP = "http"
	KindExec = "exec"
	KindDNS  = "dns"
	KindFile = "file"
	KindCert = "cert"
)

// Result is the verdict of one check, with the why.
type Result struct {
	Kind      string         `json:"kind"`   // tcp | http | exec | dns | file | cert
	Target    string         `json:"target"` // what was checked, secrets redacted
	Healthy   bool           `json:"healthy"`
	Reason    string         `json:"reason,omitempty"` // short and human, set when unhealthy
	Latency   time.Duration  `json:"-"`
	LatencyMS float64        `json:"latency_ms"`       // filled from Latency by Run
	Detail    map[string]any `json:"detail,omitempty"` // status, exit code, output tail...; never secrets or env values
}

// Spec says what to check and how. Which fields matter depends on Kind.
type Spec struct {
	Kind         string
	Target       string            // tcp/dns: host:port or host; http/cert: URL; file/cert: path; exec: unused
	Argv         []string          // exec
	Dir          string            // exec; "": the home of the user it runs as (svcenv)
	SearchPath   []string          // exec: search_path, before the base PATH
	Env          map[string]string // service env: exec gets it; http and cert use its proxy variables
	ExpectStatus int               // http: 0 = any 2xx
	ExpectBody   string            // http: regexp the first 64 KiB of the body must match ("" = none)
	MaxAge       time.Duration     // file: 0 = any age
	MinValid     time.Duration     // cert
	Timeout      time.Duration     // bounds the whole check; 0 = only the caller's context
	// RunAs is who an exec check runs as (the service's user); nil: the
	// agent's user. RunAsErr, when set, is why that user could not be
	// resolved: the exec check then does not run at all (never as root
	// instead) and is unhealthy with that reason.
	RunAs    *runas.Identity
	RunAsErr error
	// Keys are the keys of a kind its own file registers (register):
	// config.Depend.Keys, that kind's struct.
	Keys any
	// Redact writes the Result's Target and Detail without secrets; nil: a
	// rule set that knows only Env's values. The agent passes the one built
	// from every env and env_file value of its configuration.
	Redact *redact.Redactor
}

// Func is one kind of check. It honours ctx (whose deadline is the timeout)
// and fills Healthy, Reason and Detail; Run fills Kind, Target and Latency.
type Func func(ctx context.Context, s Spec) Result

// kinds is the name->Func table, as blackbox_exporter's prober handler
// keeps; kindOrder its names in the order messages list them.
var (
	kinds = map[string]Func{
		KindTCP:  probeTCP,
		KindHTTP: probeHTTP,
		KindExec: probeExec,
		KindDNS:  probeDNS,
		KindFile: probeFile,
		KindCert: probeCert,
	}
	kindOrder = []string{KindTCP, KindHTTP, KindExec, KindDNS, KindFile, KindCert}
	// targets say, for each registered kind, what a check of it looks at
	// (Result.Target), from its keys.
	targets = map[string]func(keys any) string{}
)

// register adds a dependency kind from its own file's init: its keys to
// config's one schema (a depends entry's kind), its Func to kinds, and
// target. Adding a check kind is that file, its test and its docs
// (docs/architecture.md, "Where to add").
func register(k config.DependKind, fn Func, target func(keys any) string) {
	config.RegisterDependKind(k)
	kinds[k.Name] = fn
	kindOrder = append(kindOrder, k.Name)
	targets[k.Name] = target
}

// now is the clock of file ages and certificate validity; tests may replace it.
var now = time.Now

// Run performs one check: it looks up the Func for s.Kind, applies s.Timeout
// as a context deadline and measures the latency. It always returns a Result;
// an unknown kind is an unhealthy one.
func Run(ctx context.Context, s Spec) Result {
	fn, ok := kinds[s.Kind]
	if !ok {
		last := len(kindOrder) - 1
		return finish(s, unhealthy("unknown probe kind %q, want %s or %s", s.Kind, strings.Join(kindOrder[:last], ", "), kindOrder[last]), 0)
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	start := time.Now()
	r := fn(ctx, s)
	return finish(s, r, time.Since(start))
}

// finish stamps what every kind shares, so no Func can forget it: among
// that, no secret leaves in Target, Reason or Detail (an error from net/http
// quotes the URL with its query).
func finish(s Spec, r Result, latency time.Duration) Result {
	red := s.redactor()
	r.Kind = s.Kind
	r.Target = displayTarget(s, red)
	r.Reason = red.String(r.Reason)
	if r.Detail != nil {
		r.Detail = red.Fields(r.Detail)
	}
	r.Latency = latency
	r.LatencyMS = float64(latency.Microseconds()) / 1000
	if r.Healthy {
		r.Reason = ""
	} else if r.Reason == "" {
		r.Reason = "unhealthy"
	}
	return r
}

// RunAll runs specs one after the other, in order. It does not stop at the
// first unhealthy one: the record should hold every verdict.
func RunAll(ctx context.Context, specs []Spec) []Result {
	rs := make([]Result, 0, len(specs))
	for _, s := range specs {
		rs = append(rs, Run(ctx, s))
	}
	return rs
}

// Healthy reports whether there is at least one result and all are healthy.
func Healthy(rs []Result) bool {
	if len(rs) == 0 {
		return false
	}
	for _, r := range rs {
		if !r.Healthy {
			return false
		}
	}
	return true
}

// FirstFailure names the first unhealthy result with its target, "file
// /srv/x: file does not exist": it says what to fix, where Summary's "file:
// ..." would not. Summary of rs when none failed.
func FirstFailure(rs []Result) string {
	for _, r := range rs {
		if !r.Healthy {
			return fmt.Sprintf("%s %s: %s", r.Kind, r.Target, r.Reason)
		}
	}
	return Summary(rs)
}

// Summary is one line for people: the first failure's reason prefixed by its
// kind ("http: status 500, want 2xx"), or, when all are healthy, each check
// in short ("tcp ok in 0.3ms, http 200 in 1.2ms").
func Summary(rs []Result) string {
	if len(rs) == 0 {
		return "no checks configured"
	}
	for _, r := range rs {
		if !r.Healthy {
			return r.Kind + ": " + r.Reason
		}
	}
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		lat := r.Latency
		if lat == 0 && r.LatencyMS > 0 { // a Result read back from JSON keeps only latency_ms
			lat = time.Duration(r.LatencyMS * float64(time.Millisecond))
		}
		parts = append(parts, fmt.Sprintf("%s %s in %s", r.Kind, r.okWord(), fmtLatency(lat)))
	}
	return strings.Join(parts, ", ")
}

// okWord is what a healthy result says in Summary: the status for http,
// "ok" for the rest.
func (r Result) okWord() string {
	switch code := r.Detail["status"].(type) {
	case int:
		return fmt.Sprint(code)
	case float64: // read back from JSON
		return fmt.Sprint(int(code))
	}
	return "ok"
}

// HealthSpecs turns [service.health] into specs: tcp, http, exec in that
// order, whichever are set. env is the service's env, dir its working dir.
func HealthSpecs(h config.Health, env map[string]string, dir string, searchPath []string) []Spec {
	var specs []Spec
	if h.TCP != "" {
		specs = append(specs, Spec{Kind: KindTCP, Target: h.TCP, Timeout: h.Timeout})
	}
	if h.HTTP != "" {
		specs = append(specs, Spec{
			Kind: KindHTTP, Target: h.HTTP, Env: env,
			ExpectStatus: h.ExpectStatus, ExpectBody: h.ExpectBody, Timeout: h.Timeout,
		})
	}
	if len(h.Exec) > 0 {
		specs = append(specs, Spec{Kind: KindExec, Argv: h.Exec, Dir: dir, Env: env, SearchPath: searchPath, Timeout: h.Timeout})
	}
	return specs
}

// Stamp sets what every check of one service or job shares: who its exec
// checks run as (runAs, resolved now) and the redactor its Results are
// written with.
func Stamp(specs []Spec, runAs config.RunAs, red *redact.Redactor) []Spec {
	id, err := runAs.Identity()
	for i := range specs {
		specs[i].RunAs, specs[i].RunAsErr, specs[i].Redact = id, err, red
	}
	return specs
}

// DependSpec turns one [[depends]] entry into a spec. env is the service's
// (or job's) env: an http or https dependency is reached through its proxy.
func DependSpec(d config.Depend, env map[string]string) Spec {
	s := Spec{Kind: d.Kind, Timeout: d.Timeout}
	switch d.Kind {
	case KindHTTP:
		s.Target, s.ExpectStatus, s.Env = d.URL, d.ExpectStatus, env
	case KindTCP:
		s.Target = d.Address
	case KindDNS:
		s.Target = d.Host
	case KindFile:
		s.Target, s.MaxAge = d.Path, d.MaxAge
	case KindCert:
		s.Target, s.MinValid, s.Env = d.Path, d.MinValid, env
		if s.Target == "" {
			s.Target = d.URL
		}
	default:
		if target := targets[d.Kind]; target != nil {
			s.Target, s.Keys, s.Env = target(d.Keys), d.Keys, env
		}
	}
	return s
}

// bounded runs fn, a call that cannot take a context (a stat or read on a
// network mount can hang for minutes), and gives up when ctx ends. The call
// is left to finish on its own; the check does not wait for it. It runs on a
// goroutine of its own, out of reach of the caller's L2 net: a panic in it
// is recovered here and becomes an unhealthy verdict that says so.
func bounded(ctx context.Context, s Spec, what string, fn func() Result) Result {
	ch := make(chan Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- unhealthy("the %s check panicked: %v (a bug in svc-ctl: please report it)", s.Kind, p)
			}
		}()
		ch <- fn()
	}()
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return unhealthy("%s", timeoutReason(s, what))
		}
		return unhealthy("canceled before a verdict")
	}
}

// unhealthy is a Result with a formatted reason.
func unhealthy(format string, args ...any) Result {
	return Result{Reason: fmt.Sprintf(format, args...)}
}
