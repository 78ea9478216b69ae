package redact_test

import (
	"strings"
	"testing"

	"svcctl/internal/redact"
	"svcctl/internal/redact/redacttest"
)

// fuzzSecrets are configured (env) secrets the fuzzer hides in its text.
var fuzzSecrets = []string{"tok_9f8e7d6c5b4a", "hunter2-horse", "mail-Pw-31337", "p@ss:w/rd!", "Zm9vYmFy=="}

// fuzzEvidence are values that must never change: IPs and numbers, among
// them values that are also configured (NO_PROXY, PORT).
var fuzzEvidence = []string{"127.0.0.1", "127.0.0.1:18101", "18101", "::1", "10.20.30.40:5432", "4242", "0.25"}

// FuzzString: whatever text surrounds them, no configured secret survives
// as a whole token, and no IP or number standing on its own line changes.
// The text is arbitrary; the secret is put between spaces and the evidence
// on lines of its own, where the rules promise to find and to spare them.
func FuzzString(f *testing.F) {
	for _, c := range redacttest.Cases {
		f.Add(c.In, c.In, uint8(0), uint8(0))
	}
	f.Add("password=", "--token", uint8(3), uint8(1))
	f.Add("http://h/?x=", "Authorization: Bearer", uint8(1), uint8(4))
	r := redact.New(append(fuzzSecrets, "127.0.0.1", "18101", "::1", "true")...)
	f.Fuzz(func(t *testing.T, before, after string, si, ei uint8) {
		secret := fuzzSecrets[int(si)%len(fuzzSecrets)]
		ev := fuzzEvidence[int(ei)%len(fuzzEvidence)]
		in := before + " " + secret + " " + after + "\n" + ev + "\n" + before
		out := r.String(in)
		if containsToken(out, secret) {
			t.Fatalf("secret %q survived:\n in %q\nout %q", secret, in, out)
		}
		if !strings.Contains(out, "\n"+ev+"\n") {
			t.Fatalf("evidence %q changed:\n in %q\nout %q", ev, in, out)
		}
		if again := r.String(out); again != out {
			t.Fatalf("not idempotent:\n once %q\ntwice %q", out, again)
		}
	})
}

// containsToken reports a whole-token occurrence, by the rule's own
// definition, written independently of it.
func containsToken(s, tok string) bool {
	word := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
	}
	for i := 0; ; {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(tok)
		okStart := !word(tok[0]) || start == 0 || !word(s[start-1])
		okEnd := !word(tok[len(tok)-1]) || end == len(s) || !word(s[end])
		if okStart && okEnd {
			return true
		}
		i = start + 1
	}
}
