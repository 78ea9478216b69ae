package notify

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/runtrace"
)

// maxPingBody is what healthchecks.io keeps of a ping's body.
const maxPingBody = 10_000

// Ping signals, appended to a check's URL as healthchecks.io and its
// self-hosted server read them.
const (
	SignalSuccess = ""
	SignalStart   = "start"
	SignalFail    = "fail"
	SignalLog     = "log"
)

// healthchecks turns events into pings of one check. A /fail is sent only
// for a state a later event ends: a service down or given up (ended by
// service.recovered), a job failed or missing a slot (ended by its next ok
// run, job.recovered); those endings are the bare URL (success). What was
// over when it was told — a service the watchdog restarted and found
// healthy (service.down with outcome ok), a job-reported skip, an event
// about the agent, a test — is /log: recorded on the check, its state
// unchanged. Otherwise the check would stay down after an incident that
// ended in the same cycle. See SignalFor.
type healthchecks struct{ url string }

func openHealthchecks(n *config.Notify) (Channel, error) { return &healthchecks{url: n.URL}, nil }

// SignalFor is the ping a healthchecks channel sends for e.
func SignalFor(e *Event) string {
	switch e.Kind {
	case KindServiceRecovered, KindJobRecovered:
		return SignalSuccess
	case KindServiceDown:
		if e.Outcome == runtrace.OutcomeOK { // restarted, and healthy again
			return SignalLog
		}
		return SignalFail
	case KindServiceGivenUp, KindJobFailed, KindJobMissing:
		return SignalFail
	}
	return SignalLog // job.skipped, agent, test
}

func (c *healthchecks) Send(ctx context.Context, e *Event) error {
	signal := SignalFor(e)
	body := e.Text()
	if e.Detail != "" {
		body += "\n\n" + e.Detail
	}
	return Ping(ctx, c.url, signal, e.ID, body)
}

// Ping sends one healthchecks-style ping: signal "" (success), "start",
// "fail" or "log" appended to the URL's path, body (redacted by the caller)
// cut to its last 10 KB. rid, when set, is sent as the run id so the server
// pairs a start with its end.
func Ping(ctx context.Context, rawURL, signal, rid, body string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Permanent(err)
	}
	if signal != "" {
		u.Path = strings.TrimRight(u.Path, "/") + "/" + signal
	}
	if len(body) > maxPingBody {
		body = body[len(body)-maxPingBody:]
	}
	h := http.Header{}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if rid != "" {
		h.Set("Idempotency-Key", rid)
	}
	if err := post(ctx, u.String(), h, []byte(body)); err != nil {
		return err
	}
	return nil
}

// pingName is how a ping URL appears in logs: its host only.
func pingName(rawURL string) string { return redact.SecretURL(rawURL) }
