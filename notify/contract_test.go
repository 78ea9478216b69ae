package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"svcctl/config"
	"svcctl/runtrace"
)

// documentedSignature is X-Svcctl-Signature as docs/notifications.md tells
// a receiver to check it ("sha256=<hex HMAC-SHA256 of the raw body>"),
// written here from the document, not taken from Sign: the tests that
// receive a webhook check it against what a receiver computes.
func documentedSignature(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Sign against known answers computed outside Go, with OpenSSL:
//
//	printf '%s' "$body" | openssl dgst -sha256 -hmac "$key"
//
// The first is also a widely published HMAC-SHA256 example (key "key",
// message "The quick brown fox jumps over the lazy dog").
func TestSignKnownAnswers(t *testing.T) {
	for _, c := range []struct{ key, body, want string }{
		{"key", "The quick brown fox jumps over the lazy dog",
			"sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"},
		{"hmac-key", `{"id":"evt-1","kind":"service.down","subject":"watchdog:proxy"}`,
			"sha256=408f84bed36ec65f55e5fe899891db61444180bc7651f324a04ebbfd13ae2279"},
	} {
		if got := Sign([]byte(c.key), []byte(c.body)); got != c.want {
			t.Errorf("Sign(%q, %q) = %s, want %s", c.key, c.body, got, c.want)
		}
		if got := documentedSignature(c.key, []byte(c.body)); got != c.want {
			t.Errorf("the documented check of %q gives %s, want %s: the test's oracle is wrong", c.body, got, c.want)
		}
	}
}

// escalations are the event kinds min_interval never holds: each is raised
// once per transition and must reach people at once (docs/notifications.md).
var escalations = map[string]bool{
	config.EventServiceDown:      false,
	config.EventServiceGivenUp:   true,
	config.EventServiceRecovered: false,
	config.EventJobFailed:        false,
	config.EventJobRecovered:     false,
	config.EventJobSkipped:       false,
	config.EventJobMissing:       true,
	config.EventAgent:            false, // never held either, but by subject: see deliverGroup
}

// Every event kind the config knows has its row; a group's carrier is its
// newest escalation.
func TestEscalationKinds(t *testing.T) {
	for _, k := range config.EventKinds {
		want, ok := escalations[k]
		if !ok {
			t.Errorf("event kind %q has no row in escalations: say whether min_interval may hold it", k)
			continue
		}
		group := []runtrace.Delivery{{Kind: KindServiceDown}, {Kind: k}, {Kind: KindServiceRecovered}}
		got := lastEscalation(group)
		switch {
		case want && got != 1:
			t.Errorf("%s: lastEscalation = %d, want 1 (an escalation is never held)", k, got)
		case !want && got != -1:
			t.Errorf("%s: lastEscalation = %d, want -1 (min_interval may hold it)", k, got)
		}
	}
	if len(escalations) != len(config.EventKinds) {
		t.Errorf("escalations has %d rows, config.EventKinds %d kinds", len(escalations), len(config.EventKinds))
	}
	two := []runtrace.Delivery{{Kind: KindServiceGivenUp}, {Kind: KindServiceDown}, {Kind: KindJobMissing}, {Kind: KindJobFailed}}
	if got := lastEscalation(two); got != 2 {
		t.Errorf("lastEscalation of a group with two escalations = %d, want 2 (the newest)", got)
	}
}
