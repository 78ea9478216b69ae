package notify

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"svcctl/config"
	"svcctl/internal/redact"
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

// healthchecks turns events into pings of one check: a problem is /fail,
// a recovery the bare URL (success), a job-reported skip and a test /log
// (recorded, state unchanged).
type healthchecks struct{ url string }

func openHealthchecks(n *config.Notify) (Channel, error) { return &healthchecks{url: n.URL}, nil }

func (c *healthchecks) Send(ctx context.Context, e *Event) error {
	signal := SignalFail
	switch e.Kind {
	case KindServiceRecovered:
		signal = SignalSuccess
	case KindJobSkipped, KindTest:
		signal = SignalLog
	}
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
