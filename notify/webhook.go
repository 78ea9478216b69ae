package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"svcctl/config"
)

// SignatureHeader carries the HMAC-SHA256 of the body, keyed with the
// channel's secret: "sha256=<hex>". A receiver recomputes it over the raw
// body it got and compares in constant time.
const SignatureHeader = "X-Svcctl-Signature"

// webhook POSTs the event as JSON.
type webhook struct {
	url    string
	secret []byte
}

func openWebhook(n *config.Notify) (Channel, error) {
	return &webhook{url: n.URL, secret: []byte(n.Secret)}, nil
}

func (w *webhook) Send(ctx context.Context, e *Event) error {
	body := e.JSON()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Idempotency-Key", e.ID)
	h.Set("X-Svcctl-Event", e.Kind)
	if len(w.secret) > 0 {
		h.Set(SignatureHeader, Sign(w.secret, body))
	}
	return post(ctx, w.url, h, body)
}

// Sign returns the signature header value of body under secret.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}
