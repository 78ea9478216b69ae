//go:build unix

package agent

import (
	"os"
	"strings"
	"testing"
)

// TestStartWarnsOfReadableNotifySecrets: an agent whose config
// holds a notification secret and is readable by others says so once in
// agent.log at start, with the fix and without the secret.
func TestStartWarnsOfReadableNotifySecrets(t *testing.T) {
	const secret = "hmac-0a1b2c3d4e5f"
	e := envOf(t, `
[[notify]]
name = "hook"
kind = "webhook"
url = "http://127.0.0.1:9/hook"
secret = "`+secret+`"
`)
	if err := os.Chmod(e.Cfg.Path, 0o644); err != nil {
		t.Fatal(err)
	}
	ra := startAgent(t, e, Options{})
	if err := ra.stop(t); err != nil {
		t.Fatal(err)
	}
	log := ra.log.String()
	if n := strings.Count(log, "config.secrets_readable"); n != 1 {
		t.Fatalf("%d config.secrets_readable lines, want 1:\n%s", n, log)
	}
	if !strings.Contains(log, "chmod 600 ") || !strings.Contains(log, `notify \"hook\".secret`) || strings.Contains(log, secret) {
		t.Errorf("agent.log:\n%s", log)
	}
}
