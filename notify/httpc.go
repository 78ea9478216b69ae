package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"svcctl/internal/redact"
)

// errRedirect: a channel never follows a redirect; a signed body or a token
// must not go where it was not sent.
var errRedirect = errors.New("redirect refused")

// httpClient is the client of every HTTP channel: the proxy from the
// environment (HTTPS_PROXY: a workstation behind one is the common case),
// no redirects, the timeout from the context.
var httpClient = &http.Client{
	Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	},
	CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect },
}

// userAgent names svc-ctl to receivers.
const userAgent = "svc-ctl-notify/1"

// post sends body to rawURL and classifies the answer: 2xx is delivered;
// 4xx but 408 and 429 is a permanent refusal; anything else, and every
// network error, is retried. Errors never hold the URL, only its host.
func post(ctx context.Context, rawURL string, header http.Header, body []byte) error {
	_, err := postWith(ctx, httpClient, rawURL, header, body, 0)
	return err
}

// postWith is post through client, and returns up to keep bytes of a 2xx
// answer's body (an OTLP collector's partial success is in it).
func postWith(ctx context.Context, client *http.Client, rawURL string, header http.Header, body []byte, keep int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return nil, Permanent(fmt.Errorf("invalid URL %s", redact.SecretURL(rawURL)))
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := client.Do(req)
	if err != nil {
		return nil, httpError(err, rawURL)
	}
	defer resp.Body.Close()
	if keep > 0 && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		b, err := io.ReadAll(io.LimitReader(resp.Body, keep))
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		if err != nil {
			return nil, fmt.Errorf("read the answer of %s: %w", redact.SecretURL(rawURL), err)
		}
		return b, nil
	}
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	return nil, statusError(resp, snippet)
}

func statusError(resp *http.Response, snippet []byte) error {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	err := fmt.Errorf("HTTP %s", resp.Status)
	if s := oneLine(redact.New().String(string(snippet))); s != "" {
		err = fmt.Errorf("HTTP %s: %s", resp.Status, s)
	}
	switch {
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After")); ok {
			return &retryAfterError{err: err, after: d}
		}
		return err
	case code >= 300 && code < 400:
		return Permanent(fmt.Errorf("%w: the receiver answered %s; set url to the final address", errRedirect, resp.Status))
	}
	return Permanent(err)
}

// httpError replaces net/http's error, which quotes the whole URL, by one
// that names the host only.
func httpError(err error, rawURL string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if errors.Is(ue.Err, errRedirect) {
			return Permanent(fmt.Errorf("%s %s: %w: set url to the final address", ue.Op, redact.SecretURL(rawURL), errRedirect))
		}
		if errors.Is(err, context.DeadlineExceeded) || ue.Timeout() {
			return fmt.Errorf("%s %s: no answer within the timeout", ue.Op, redact.SecretURL(rawURL))
		}
		return fmt.Errorf("%s %s: %w", ue.Op, redact.SecretURL(rawURL), ue.Err)
	}
	return err
}

func parseRetryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t)), true
	}
	return 0, false
}
