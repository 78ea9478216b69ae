//go:build linux

package privileged

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Read verbs as root accepted a config another user can write: `svc-ctl
// logs x --config /home/u/evil.toml` with `log = "/etc/shadow"` printed
// /etc/shadow. Every verb run as root now applies one trust rule: a reader
// answers from the state dir alone, takes no path from the file and says
// so; verify FAILs it.
func TestAttackReadersWithUsersConfig(t *testing.T) {
	requirePrivileged(t)
	secret, content := victim(t)
	home := attackerDir(t, "cfg")
	evil := filepath.Join(home, "evil.toml")
	body := "[agent]\nstate_dir = \"" + filepath.Join(home, "state") + "\"\n" +
		webService("x", freeAddr(t), fmt.Sprintf("log = %q", secret))
	writeAs(t, evil, body, 0o644, attacker.uid, attacker.gid)
	firstLine := strings.SplitN(content, "\n", 2)[0]
	for _, args := range [][]string{
		{"logs", "x"}, {"logs", "x", "--prev"}, {"status"}, {"status", "x"}, {"why", "x"}, {"runs"},
		{"snapshot", "x"}, {"missing"}, {"verify"},
	} {
		r := asRoot(t, nil, append([]string{"--config", evil}, args...)...)
		if strings.Contains(r.stdout+r.stderr, firstLine) {
			t.Fatalf("%v as root printed the file the attacker's config named:\n%v", args, r)
		}
		if !contains(r, "not trusting "+evil) || !contains(r, "run without sudo, or make the file root-owned") ||
			!contains(r, "chown root "+evil) {
			t.Errorf("%v does not say why the config is not trusted and what to do:\n%v", args, r)
		}
		if strings.Contains(r.stdout+r.stderr, filepath.Join(home, "state")) {
			t.Errorf("%v read the state dir the attacker's config names:\n%v", args, r)
		}
	}
	v := asRoot(t, nil, "--config", evil, "verify")
	if v.code != 1 || !strings.Contains(v.stdout, "FAIL  config trusted") {
		t.Errorf("verify does not FAIL the attacker's config:\n%v", v)
	}
	assertUnchanged(t, secret, content)
	assertAbsent(t, filepath.Join(home, "state"))
}
