//go:build unix

package report

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"svcctl/config"
)

// TestVerifyWarnsOnReadableNotifySecrets: verify WARNs when the
// config file holds notification secrets and other users can read it,
// naming the keys and `chmod 600 FILE` but not the secret; PASS at 0600; no
// line for a config that holds none.
func TestVerifyWarnsOnReadableNotifySecrets(t *testing.T) {
	e := newEnv(t, "2s")
	env := VerifyEnv{Now: time.Now(), BootTime: time.Now().Add(-time.Hour), Install: installed}
	ctx := context.Background()
	for _, c := range Verify(ctx, e.cfg, env).Checks {
		if c.Name == checkSecretsPrivate {
			t.Fatalf("a config without secrets has the line %+v", c)
		}
	}
	const secret = "hmac-9f8e7d6c5b4a"
	e.cfg.Notify = []config.Notify{{Name: "hook", Kind: config.NotifyWebhook, URL: "https://hooks.example.com/svc-ctl", Secret: secret, Timeout: time.Second}}
	if err := os.Chmod(e.cfg.Path, 0o644); err != nil {
		t.Fatal(err)
	}
	c := check(t, Verify(ctx, e.cfg, env), checkSecretsPrivate)
	if c.Status != Warn || !strings.Contains(c.Evidence, "chmod 600 ") || !strings.Contains(c.Evidence, `notify "hook".secret`) ||
		!strings.Contains(c.Evidence, "readable by everyone") || strings.Contains(c.Evidence, secret) {
		t.Errorf("config 0644 with a webhook secret: %+v", c)
	}
	if err := os.Chmod(e.cfg.Path, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := check(t, Verify(ctx, e.cfg, env), checkSecretsPrivate); c.Status != Pass {
		t.Errorf("config 0600: %+v", c)
	}
}

// An env value written in a world-readable config is a secret others can
// read too: verify names it (never its value) with the fix, as it names a
// notification secret. Failed before: verify said nothing about env.
func TestVerifyWarnsOnReadableEnvSecrets(t *testing.T) {
	e := newEnv(t, "2s")
	env := VerifyEnv{Now: time.Now(), BootTime: time.Now().Add(-time.Hour), Install: installed}
	const secret = "sk-live-4242abcdef"
	svc := &e.cfg.Services[0]
	svc.Env = map[string]string{"API_TOKEN": secret, "PORT": "8789"}
	svc.EnvKeys = []string{"API_TOKEN", "PORT"}
	if err := os.Chmod(e.cfg.Path, 0o644); err != nil {
		t.Fatal(err)
	}
	c := check(t, Verify(context.Background(), e.cfg, env), checkSecretsPrivate)
	if c.Status != Warn || !strings.Contains(c.Evidence, `service "`+svc.Name+`".env.API_TOKEN`) || strings.Contains(c.Evidence, "env.PORT") ||
		strings.Contains(c.Evidence, secret) || !strings.Contains(c.Evidence, "move them to env_file") {
		t.Errorf("config 0644 with an env secret: %+v", c)
	}
}
