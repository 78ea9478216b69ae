//go:build unix

package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"svcctl/config"
	"svcctl/internal/testutil"
)

// A reader who may not read a secret file still gets the config (what
// status and logs load, LoadToRead), with the file named as unread; a load
// to run refuses it. Root reads every file, so as root (CI) the test runs
// as an unprivileged user: it is never skipped.
func TestSecretFileUnreadable(t *testing.T) {
	if testutil.AsUnprivileged(t) {
		return
	}
	dir := t.TempDir()
	hmac := filepath.Join(dir, "hmac")
	if err := os.WriteFile(hmac, []byte("hmac-file-k3y"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "svc-ctl.toml")
	text := `
[agent]
state_dir = "` + filepath.ToSlash(filepath.Join(dir, "state")) + `"

[[notify]]
name = "hook"
kind = "webhook"
url = "https://hooks.example.com/svc-ctl"
secret_file = "` + hmac + `"
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(hmac, 0o000); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(hmac); err == nil {
		t.Fatalf("uid %d reads a mode 0000 file: the unreadable case cannot be made here", os.Geteuid())
	}
	if _, err := config.Load(path); err == nil || !strings.Contains(err.Error(), "permission denied") ||
		!strings.Contains(err.Error(), `notify "hook": secret_file`) {
		t.Errorf("Load with an unreadable secret_file: %v", err)
	}
	rc, err := config.LoadToRead(path)
	if err != nil || !slices.Contains(rc.UnreadEnvFiles, hmac) {
		t.Errorf("LoadToRead with an unreadable secret_file: %v (unread %v)", err, rc)
	}
}
