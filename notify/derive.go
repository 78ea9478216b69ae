package notify

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/runtrace"
)

// Subject marks: what people were last told about a subject. An event is
// raised on a change of mark (a transition), not for every row: the tenth
// failed start of a service already reported down says nothing new.
const (
	markUp      = "up" // seen healthy during this boot (At: first seen so)
	markDown    = "down"
	markGivenUp = "given-up"
)

// Deriver turns recorded runs into events. Its Emit is a runtrace.Emitter:
// it runs inside the transaction that writes the verdict.
type Deriver struct {
	// mu guards cfg and red, which a reload of the agent's config replaces
	// (SetConfig) while runs are being recorded.
	mu   sync.RWMutex
	cfg  *config.Config
	boot time.Time // the host's boot: see service()
	host string
	loc  *time.Location
	red  *redact.Redactor
	// newID is the id source; a field so tests can make ids predictable.
	newID func() string
}

// NewDeriver derives events for cfg's channels on host (the machine's name,
// as people know it); loc is the host's zone (nil: time.Local).
func NewDeriver(cfg *config.Config, host string, loc *time.Location) *Deriver {
	if loc == nil {
		loc = time.Local
	}
	return &Deriver{cfg: cfg, host: host, loc: loc, red: redact.New(cfg.SecretValues()...), newID: newID}
}

// SetConfig derives for a reloaded config: its jobs' zones, and the
// secrets of every config so far redacted (a process started under the old
// one may still print its secrets).
func (d *Deriver) SetConfig(cfg *config.Config) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.red = redact.New(append(d.cfg.SecretValues(), cfg.SecretValues()...)...)
	d.cfg = cfg
}

func (d *Deriver) conf() *config.Config {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.cfg
}

func (d *Deriver) redactor() *redact.Redactor {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.red
}

// SetBootTime tells the deriver when the host booted (the agent knows): a
// service restarted by its first cycles after a boot is not reported down.
// Call it before runs pass the funnel.
func (d *Deriver) SetBootTime(t time.Time) { d.boot = t }

// runDetail is what the derivation reads of a run's detail JSON, whoever
// wrote it (a watchdog cycle or a job run).
type runDetail struct {
	Message    string       `json:"message"`
	State      string       `json:"state"`
	Failures   int          `json:"consecutive_failures"`
	ExitCode   *int         `json:"exit_code"`
	Why        string       `json:"why"`
	Error      string       `json:"error"`
	Cause      string       `json:"cause"`
	Timeout    string       `json:"timeout"`
	Probe      []probeWords `json:"probe"`
	SecondLook []probeWords `json:"second_look"`
	Depends    []probeWords `json:"depends"`
	LogTail    []string     `json:"log_tail"`
	OutputTail []string     `json:"output_tail"`
	// CrashLoop is set on a start the watchdog refused for a crash loop.
	CrashLoop *struct {
		UpFor string `json:"up_for"`
	} `json:"crash_loop"`
	// The agent's own rows.
	Crashed bool     `json:"previous_agent_crashed"`
	Tail    []string `json:"tail"`
}

type probeWords struct {
	Kind    string `json:"kind"`
	Target  string `json:"target"`
	Healthy bool   `json:"healthy"`
	Reason  string `json:"reason"`
}

// Emit is the runtrace.Emitter of every run: it returns the events r raises
// given the subject's mark m, and the subject's new mark.
func (d *Deriver) Emit(r runtrace.Run, m runtrace.Mark) ([]runtrace.OutboxEvent, runtrace.Mark) {
	var det runDetail
	_ = json.Unmarshal(r.Detail, &det) // a detail we cannot read still raises its event, with less said
	kind, name := runtrace.SplitID(r.JobID)
	switch kind {
	case runtrace.KindWatchdog:
		return d.service(r, name, &det, m)
	case runtrace.KindJob:
		return d.job(r, name, &det, m)
	}
	return d.agentRun(r, &det, m)
}

// service: down on the first failure (or a restart the watchdog had to
// make), given-up once, recovered when healthy after either.
func (d *Deriver) service(r runtrace.Run, name string, det *runDetail, m runtrace.Mark) ([]runtrace.OutboxEvent, runtrace.Mark) {
	at := r.FinishedAt
	switch {
	case r.Outcome == runtrace.OutcomeOK:
		up := runtrace.Mark{Value: markUp, At: at}
		if m.Value == markDown || m.Value == markGivenUp {
			return d.events(d.serviceEvent(r, name, det, KindServiceRecovered, d.recoveredMsg(r, name, m))), up
		}
		// A start the watchdog had to make is news only for a service that
		// was up during this boot: the first start after a reboot is svc-ctl
		// doing its job, not an outage (a desktop would page at every boot).
		upThisBoot := m.Value == markUp && !m.At.Before(d.boot)
		if r.Reason == runtrace.ReasonStarted && r.Trigger != runtrace.TriggerManual && upThisBoot {
			msg := fmt.Sprintf("%s on %s was down (%s) and was restarted", name, d.host, d.why(det, "unhealthy"))
			return d.events(d.serviceEvent(r, name, det, KindServiceDown, msg)), m
		}
		if !upThisBoot {
			return nil, up // written once per boot, not at every healthy cycle
		}
		return nil, m
	case det.State == markGivenUp || (r.Outcome == runtrace.OutcomeSkipped && r.Reason == runtrace.ReasonGivenUp):
		if m.Value == markGivenUp {
			return nil, m
		}
		msg := fmt.Sprintf("%s on %s is given up after %d failed starts (%s); `svc-ctl start %s` tries again",
			name, d.host, max(det.Failures, 1), d.why(det, string(r.Reason)), name)
		return d.events(d.serviceEvent(r, name, det, KindServiceGivenUp, msg)), runtrace.Mark{Value: markGivenUp, At: at}
	case r.Outcome == runtrace.OutcomeFailed && serviceDown(r.Reason):
		if m.Value == markDown || m.Value == markGivenUp {
			return nil, m
		}
		msg := fmt.Sprintf("%s on %s is down: %s: %s", name, d.host, r.Reason, d.why(det, "unhealthy"))
		return d.events(d.serviceEvent(r, name, det, KindServiceDown, msg)), runtrace.Mark{Value: markDown, At: at}
	case r.Outcome == runtrace.OutcomeFailed && r.Reason == runtrace.ReasonPanic:
		msg := fmt.Sprintf("svc-ctl on %s panicked in a cycle of %s (recovered, the agent goes on): %s", d.host, name, d.why(det, "panic"))
		return d.events(d.serviceEvent(r, name, det, KindAgent, msg)), m
	}
	return nil, m
}

// serviceDown lists the failed reasons that mean the service is not doing
// its job. interrupted (the agent stopping) and abandoned (a cycle that died
// with its agent) are about the agent, not the service.
func serviceDown(reason runtrace.Reason) bool {
	switch reason {
	case runtrace.ReasonStartFailed, runtrace.ReasonSpawnError, runtrace.ReasonDependencyFailed, runtrace.ReasonTimeout:
		return true
	}
	return false
}

func (d *Deriver) recoveredMsg(r runtrace.Run, name string, m runtrace.Mark) string {
	was := "down"
	if m.Value == markGivenUp {
		was = "given up"
	}
	since := m.At.In(d.loc)
	return fmt.Sprintf("%s on %s is healthy again (%s since %s, %s)", name, d.host, was,
		since.Format("2006-01-02 15:04 MST"), humanDuration(max(0, r.FinishedAt.Sub(m.At))))
}

// Job marks: what the last events said of a job that is not ok now.
const (
	markJobFailed  = "failed"
	markJobMissing = "missing" // set by MissingCheck
)

// job: every failed run is news (a nightly job that fails each night says
// so each night; min_interval tames a fast one); the first ok run after a
// failure or a missed slot is job.recovered (a healthchecks channel turns
// green on it); a skip only when the job itself said so (reason job.*), not
// overlap or a pause.
func (d *Deriver) job(r runtrace.Run, name string, det *runDetail, m runtrace.Mark) ([]runtrace.OutboxEvent, runtrace.Mark) {
	switch {
	case r.Outcome == runtrace.OutcomeFailed && r.Reason != runtrace.ReasonInterrupted:
		msg := fmt.Sprintf("job %s on %s failed: %s", name, d.host, r.Reason)
		if w := d.why(det, ""); w != "" {
			msg += ": " + w
		}
		next := runtrace.Mark{Value: markJobFailed, At: r.FinishedAt}
		if m.Value == markJobFailed {
			next = m // not ok since the first failure
		}
		return d.events(d.jobEvent(r, name, det, KindJobFailed, msg)), next
	case r.Outcome == runtrace.OutcomeOK && (m.Value == markJobFailed || m.Value == markJobMissing):
		was := "failed"
		if m.Value == markJobMissing {
			was = "missed a run"
		}
		msg := fmt.Sprintf("job %s on %s ran ok again (%s since %s, %s)", name, d.host, was,
			m.At.In(d.loc).Format("2006-01-02 15:04 MST"), humanDuration(max(0, r.FinishedAt.Sub(m.At))))
		return d.events(d.jobEvent(r, name, det, KindJobRecovered, msg)), runtrace.Mark{}
	case r.Outcome == runtrace.OutcomeSkipped && strings.HasPrefix(string(r.Reason), "job."):
		msg := fmt.Sprintf("job %s on %s skipped: %s", name, d.host, r.Reason)
		if w := d.why(det, ""); w != "" {
			msg += ": " + w
		}
		return d.events(d.jobEvent(r, name, det, KindJobSkipped, msg)), m
	case r.Outcome == runtrace.OutcomeOK && m.Value != "":
		return nil, runtrace.Mark{}
	}
	return nil, m
}

// agentRun: the agent's own rows that fail (a reload refused, say).
func (d *Deriver) agentRun(r runtrace.Run, det *runDetail, m runtrace.Mark) ([]runtrace.OutboxEvent, runtrace.Mark) {
	if r.Outcome != runtrace.OutcomeFailed || r.Reason == runtrace.ReasonInterrupted {
		return nil, m
	}
	msg := fmt.Sprintf("svc-ctl on %s: %s: %s", d.host, r.Reason, d.why(det, string(r.Reason)))
	if det.Crashed {
		msg = fmt.Sprintf("svc-ctl on %s: the previous agent died of a fatal error (its output is in crash.prev.log); a new agent started", d.host)
	}
	e := d.base(r, KindAgent, msg, det)
	return d.events(e), m
}

func (d *Deriver) serviceEvent(r runtrace.Run, name string, det *runDetail, kind, msg string) Event {
	e := d.base(r, kind, msg, det)
	e.Service = name
	return e
}

func (d *Deriver) jobEvent(r runtrace.Run, name string, det *runDetail, kind, msg string) Event {
	e := d.base(r, kind, msg, det)
	e.Job = name
	if !r.ScheduledAt.IsZero() {
		loc := d.loc
		if j := d.conf().Job(name); j != nil && j.Location != nil {
			loc = j.Location
		}
		e.Slot = r.ScheduledAt.In(loc).Format(time.RFC3339)
	}
	return e
}

func (d *Deriver) base(r runtrace.Run, kind, msg string, det *runDetail) Event {
	e := Event{ID: d.newID(), Kind: kind, Subject: r.JobID, Host: d.host, RunID: r.ID, Trigger: r.Trigger,
		Outcome: r.Outcome, Reason: r.Reason, Cause: det.Cause,
		Message: d.redactor().String(oneLine(msg)), Detail: d.detail(det)}
	e.stamp(r.FinishedAt, d.loc)
	return e
}

// events wraps events for the outbox, each with the channels that want it.
func (d *Deriver) events(es ...Event) []runtrace.OutboxEvent {
	out := make([]runtrace.OutboxEvent, 0, len(es))
	for i := range es {
		out = append(out, d.outbox(&es[i]))
	}
	return out
}

func (d *Deriver) outbox(e *Event) runtrace.OutboxEvent {
	return runtrace.OutboxEvent{ID: e.ID, RunID: e.RunID, Kind: e.Kind, Subject: e.Subject, CreatedAt: e.Time,
		Payload: e.JSON(), Channels: d.channels(e.Kind)}
}

// channels names the configured channels that take events of kind k.
func (d *Deriver) channels(k string) []string {
	var out []string
	cfg := d.conf()
	for i := range cfg.Notify {
		if cfg.Notify[i].Wants(k) {
			out = append(out, cfg.Notify[i].Name)
		}
	}
	return out
}

// why is the run's own words for what went wrong, or def.
func (d *Deriver) why(det *runDetail, def string) string { return whyOf(d.redactor(), det, def) }

// detail is the short evidence: exit code, probe words, the last lines of
// output, redacted and capped.
func (d *Deriver) detail(det *runDetail) string { return detailOf(d.redactor(), det) }

// whyOf is a run's own words for what went wrong, or def, redacted by red.
func whyOf(red *redact.Redactor, det *runDetail, def string) string {
	if det.CrashLoop != nil && det.Cause != "" {
		// The words people act on: it starts, then dies by itself.
		return red.String(oneLine(fmt.Sprintf("crash loop: down again %s after each start, %s", det.CrashLoop.UpFor, det.Cause)))
	}
	for _, s := range []string{det.Cause, det.Why, det.Error, probeSummary(det.SecondLook), probeSummary(det.Probe),
		probeSummary(det.Depends), det.Message} {
		if s != "" {
			return red.String(oneLine(s))
		}
	}
	if det.ExitCode != nil {
		return fmt.Sprintf("exit code %d", *det.ExitCode)
	}
	if det.Timeout != "" {
		return "timed out after " + det.Timeout
	}
	return def
}

// detailOf is a run's short evidence: exit code, probe words, the last
// lines of output, redacted by red and capped.
func detailOf(red *redact.Redactor, det *runDetail) string {
	var b strings.Builder
	if det.ExitCode != nil {
		fmt.Fprintf(&b, "exit code %d\n", *det.ExitCode)
	}
	for _, p := range append(append(det.SecondLook, det.Probe...), det.Depends...) {
		if !p.Healthy {
			fmt.Fprintf(&b, "%s %s: %s\n", p.Kind, p.Target, p.Reason)
			break
		}
	}
	tail := det.OutputTail
	if len(tail) == 0 {
		tail = det.LogTail
	}
	if len(tail) == 0 {
		tail = det.Tail
	}
	if n := len(tail); n > 0 {
		b.WriteString(strings.Join(tail[max(0, n-10):], "\n"))
	}
	s := red.String(strings.TrimSpace(b.String()))
	if len(s) > maxDetail {
		s = "…" + s[len(s)-maxDetail:]
	}
	return s
}

func probeSummary(rs []probeWords) string {
	for _, p := range rs {
		if !p.Healthy && p.Reason != "" {
			return fmt.Sprintf("%s %s: %s", p.Kind, p.Target, p.Reason)
		}
	}
	return ""
}

// oneLine keeps the first line of s, at most 300 bytes.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

func humanDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
