package redact_test

import (
	"fmt"
	"testing"

	"svcctl/internal/redact"
	"svcctl/internal/redact/redacttest"
)

// The redactor runs on every line the agent writes (agent.log, each log
// tail line of a snapshot, every run_trace detail). These give its cost per
// line with a config of 30 secrets.
func benchRedactor() *redact.Redactor {
	vals := redacttest.Values()
	for i := range 25 {
		vals = append(vals, fmt.Sprintf("secret-value-%02d-abcdef", i))
	}
	return redact.New(vals...)
}

func BenchmarkStringPlainLine(b *testing.B) {
	r := benchRedactor()
	line := `{"time":"2026-12-01T04:00:00Z","level":"INFO","msg":"cycle.done","service":"web","outcome":"ok","reason":"already-running","latency_ms":0.4}`
	b.ReportAllocs()
	for b.Loop() {
		r.String(line)
	}
}

func BenchmarkStringSecretLine(b *testing.B) {
	r := benchRedactor()
	line := "GET https://api.example.com/v1?token=tok_9f8e7d6c5b4a failed: password hunter2-horse rejected by 127.0.0.1:18101"
	b.ReportAllocs()
	for b.Loop() {
		r.String(line)
	}
}

func BenchmarkNew30(b *testing.B) {
	vals := redacttest.Values()
	for i := range 25 {
		vals = append(vals, fmt.Sprintf("secret-value-%02d-abcdef", i))
	}
	b.ReportAllocs()
	for b.Loop() {
		redact.New(vals...)
	}
}
