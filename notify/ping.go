package notify

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/runtrace"
)

// Pinger sends the healthchecks-style pings of the `ping` keys of services
// and jobs; it is an observer of the run funnel. A job pings URL/start when
// a run starts, URL when it ends ok, URL/fail with its output tail when it
// fails and URL/log when it is skipped. A service pings URL after every
// healthy cycle — so the server raises its own alarm when the host or the
// agent goes silent — and URL/fail when a cycle finds it down or given up.
//
// Pings go out in the background (a slow server never holds a cycle), one
// retry after a short pause, each bounded by the timeout; they are not
// queued: a ping that is late is a wrong ping. Each result is kept as the
// state of channel "ping:<run id>" for status and verify.
type Pinger struct {
	mu      sync.RWMutex      // guards urls and red, which SetConfig replaces
	urls    map[string]string // run id (watchdog:NAME, job:NAME) -> ping URL
	store   *runtrace.Store   // nil: results are only logged
	log     *slog.Logger
	red     *redact.Redactor
	timeout time.Duration
	wg      sync.WaitGroup
	sem     chan struct{}
	// Go starts a ping's goroutine; the agent puts it under its L2 net.
	// Default: a plain go statement.
	Go func(name string, fn func())
}

// PingChannel is the channel name under which a subject's ping results are
// kept.
func PingChannel(jobID string) string { return "ping:" + jobID }

// NewPinger pings for cfg's services and jobs that have a ping URL.
func NewPinger(cfg *config.Config, store *runtrace.Store, log *slog.Logger) *Pinger {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Pinger{urls: pingURLs(cfg), store: store, log: log, red: redact.New(cfg.SecretValues()...),
		timeout: 10 * time.Second, sem: make(chan struct{}, 4)}
	return p
}

// SetConfig pings for a reloaded config's services and jobs; the secrets
// of both configs stay redacted.
func (p *Pinger) SetConfig(old, cfg *config.Config) {
	urls := pingURLs(cfg)
	red := redact.New(append(old.SecretValues(), cfg.SecretValues()...)...)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.urls, p.red = urls, red
}

func pingURLs(cfg *config.Config) map[string]string {
	urls := map[string]string{}
	for _, s := range cfg.Services {
		if s.Ping != "" {
			urls[runtrace.WatchdogID(s.Name)] = s.Ping
		}
	}
	for _, j := range cfg.Jobs {
		if j.Ping != "" {
			urls[runtrace.JobID(j.Name)] = j.Ping
		}
	}
	return urls
}

func (p *Pinger) url(jobID string) (string, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	u, ok := p.urls[jobID]
	return u, ok
}

func (p *Pinger) redactor() *redact.Redactor {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.red
}

// RunStarted is told of a run that begins: a job with a ping sends /start.
func (p *Pinger) RunStarted(jobID string, _ runtrace.Trigger, runID int64) {
	if url, ok := p.url(jobID); ok && isJob(jobID) {
		p.send(jobID, url, SignalStart, runID, "")
	}
}

// RunFinished is told of every verdict.
func (p *Pinger) RunFinished(r runtrace.Run) {
	url, ok := p.url(r.JobID)
	if !ok {
		return
	}
	signal, send := p.signal(r)
	if send {
		p.send(r.JobID, url, signal, r.ID, p.body(r, signal))
	}
}

// signal picks the ping of a verdict, and whether there is one.
func (p *Pinger) signal(r runtrace.Run) (string, bool) {
	job := isJob(r.JobID)
	outcome, reason := string(r.Outcome), string(r.Reason)
	switch {
	case outcome == "ok":
		return SignalSuccess, true
	case outcome == "failed" && reason == "interrupted":
		return "", false // the agent stopping is not the subject failing
	case outcome == "failed":
		return SignalFail, true
	case job:
		return SignalLog, true
	case reason == "given-up":
		return SignalFail, true
	}
	return "", false // a paused or backing-off service: nothing new to say
}

// body is what the server shows with the ping: the verdict and, for a
// failure, the tail of the output or the probe's words; redacted.
func (p *Pinger) body(r runtrace.Run, signal string) string {
	var det runDetail
	_ = json.Unmarshal(r.Detail, &det)
	var b strings.Builder
	b.WriteString(string(r.Outcome))
	if r.Reason != "" {
		b.WriteString("/" + string(r.Reason))
	}
	for _, s := range []string{det.Cause, det.Why, det.Error, probeSummary(det.Probe), det.Message} {
		if s != "" {
			b.WriteString(": " + oneLine(s))
			break
		}
	}
	if signal == SignalFail || signal == SignalLog {
		tail := det.OutputTail
		if len(tail) == 0 {
			tail = det.LogTail
		}
		if len(tail) > 0 {
			b.WriteString("\n\n" + strings.Join(tail, "\n"))
		}
	}
	return p.redactor().String(b.String())
}

func (p *Pinger) send(jobID, url, signal string, runID int64, body string) {
	p.wg.Add(1)
	start := p.Go
	if start == nil {
		start = func(_ string, fn func()) { go fn() }
	}
	start("ping:"+jobID, func() {
		defer p.wg.Done()
		p.sem <- struct{}{}
		defer func() { <-p.sem }()
		rid := ""
		if runID != 0 { // negative: provisional (the ledger's queue holds the row); still one per run
			rid = jobID + "/" + itoa(runID) // pairs a job's /start with its end
		}
		var err error
		began := time.Now()
		for attempt := range 2 {
			if attempt > 0 {
				time.Sleep(2 * time.Second)
			}
			ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
			err = Ping(ctx, url, signal, rid, body)
			cancel()
			if err == nil || IsPermanent(err) {
				break
			}
		}
		p.record(jobID, signal, url, time.Since(began), err)
	})
}

func (p *Pinger) record(jobID, signal, url string, lat time.Duration, err error) {
	errText := ""
	if err != nil {
		errText = err.Error()
		p.log.Warn("ping.failed", "subject", jobID, "signal", signal, "url", pingName(url), "err", err)
	} else {
		p.log.Debug("ping.sent", "subject", jobID, "signal", signal, "latency_ms", lat.Milliseconds())
	}
	if p.store != nil {
		if rerr := p.store.ChannelResult(context.Background(), PingChannel(jobID), time.Now(), lat, errText); rerr != nil {
			p.log.Warn("ping.record_failed", "subject", jobID, "err", rerr)
		}
	}
}

// Wait returns when every ping sent so far has been answered or given up.
func (p *Pinger) Wait() { p.wg.Wait() }

// WaitFor is Wait bounded by d (a CLI process should not hang on a slow
// ping server); it reports whether every ping finished.
func (p *Pinger) WaitFor(d time.Duration) bool {
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func isJob(jobID string) bool {
	kind, _ := runtrace.SplitID(jobID)
	return kind == runtrace.KindJob
}
