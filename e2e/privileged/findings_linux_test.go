//go:build linux

package privileged

import (
	"path/filepath"
	"strings"
	"testing"
)

// Durations like 106751d passed config check and overflowed
// later.
func TestDurationOverflowRefused(t *testing.T) {
	requirePrivileged(t)
	cfg, _ := rootConfig(t, webService("web", freeAddr(t), `interval = "106751d"`))
	r := asRoot(t, nil, "config", "check", "--config", cfg)
	wantRefused(t, r, 2, `interval: duration "106751d" is too long: the longest accepted is 366d`)
}

// Drill skipped the config permission check that start applies;
// as root, `svc-ctl drill web --config /home/user/evil.toml` ran that
// config's health.exec as root.
func TestAttackDrillRunsUserConfig(t *testing.T) {
	requirePrivileged(t)
	home := attackerDir(t, "cfg")
	marker := filepath.Join(rootDir(t, "out"), "pwned-by-drill")
	evil := filepath.Join(home, "evil.toml")
	body := "[agent]\nstate_dir = \"" + filepath.Join(home, "state") + "\"\n" +
		webService("web", freeAddr(t), `health.exec = ["/usr/bin/touch", "`+marker+`"]`)
	writeAs(t, evil, body, 0o644, attacker.uid, attacker.gid)
	r := asRoot(t, nil, "drill", "web", "--config", evil, "--timeout", "5s")
	wantRefused(t, r, 2, evil, "owned by", "chown root "+evil)
	assertAbsent(t, marker)
}

// The same, for every other privileged verb: each refuses the attacker's
// config before it runs or signals anything.
func TestAttackUserConfigRefusedByEveryPrivilegedVerb(t *testing.T) {
	requirePrivileged(t)
	home := attackerDir(t, "cfg")
	marker := filepath.Join(rootDir(t, "out"), "pwned")
	evil := filepath.Join(home, "evil.toml")
	body := "[agent]\nstate_dir = \"" + filepath.Join(home, "state") + "\"\n" +
		webService("web", freeAddr(t), `health.exec = ["/usr/bin/touch", "`+marker+`"]`) + `
[[job]]
name = "j"
schedule = "@daily"
timezone = "UTC"
command = ["/usr/bin/touch", "` + marker + `"]
`
	writeAs(t, evil, body, 0o644, attacker.uid, attacker.gid)
	for _, args := range [][]string{
		{"agent"}, {"start", "web"}, {"stop", "web"}, {"restart", "web"}, {"drill", "web"},
		{"exec", "j", "--", "/usr/bin/touch", marker}, {"pause", "web"}, {"resume", "web"}, {"reload"},
	} {
		t.Run(args[0], func(t *testing.T) {
			if !hasVerb(t, args[0]) {
				t.Skipf("svc-ctl has no %q verb yet (cmd/svc-ctl's verb list test covers it when it comes)", args[0])
			}
			r := asRoot(t, nil, append([]string{"--config", evil}, args...)...)
			if r.code == 0 {
				t.Fatalf("svc-ctl %v accepted the attacker's config:\n%v", args, r)
			}
			if !contains(r, "chown root "+evil) {
				t.Errorf("svc-ctl %v: refusal does not name the fix:\n%v", args, r)
			}
			assertAbsent(t, marker)
			assertAbsent(t, filepath.Join(home, "state"))
		})
	}
}

func contains(r result, s string) bool {
	return strings.Contains(r.stderr, s) || strings.Contains(r.stdout, s)
}

// hasVerb reports whether this svc-ctl has the command: it is listed
// under "Available Commands" of the root's help.
func hasVerb(t *testing.T, verb string) bool {
	r := asRoot(t, nil, "--help")
	_, cmds, _ := strings.Cut(r.stdout, "Available Commands:")
	cmds, _, _ = strings.Cut(cmds, "Flags:")
	for _, l := range strings.Split(cmds, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == verb {
			return true
		}
	}
	return false
}
