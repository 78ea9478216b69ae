package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// enabled says whether the installed agent service will start at the next
// boot (or login): a unit that is installed and running but not enabled
// works until the next reboot, which is exactly the defect L1 exists to
// catch. known is false where this cannot be asked (launchd, Windows: there
// the generated definition itself starts at load / automatically).
func enabled(ctx context.Context, t Target, s Spec, r runner) (on, known bool) {
	switch t.Platform {
	case "linux-systemd":
		argv := []string{"systemctl"}
		if s.User {
			argv = append(argv, "--user")
		}
		out, _ := r.run(ctx, append(argv, "is-enabled", ServiceName+".service")...)
		state := strings.TrimSpace(string(out))
		// enabled, enabled-runtime, static, alias... only "enabled" starts at boot
		// through our WantedBy; "disabled", "masked" and errors do not.
		return state == "enabled", state != ""
	case "unix-systemv":
		return sysvEnabled(), true
	case "linux-openrc":
		_, err := os.Stat(host.path("/etc/runlevels/default/" + ServiceName))
		return err == nil, true
	}
	return false, false
}

// sysvEnabled: a start link in any multi-user runlevel.
func sysvEnabled() bool {
	for _, lvl := range []string{"2", "3", "4", "5"} {
		ms, _ := filepath.Glob(host.path("/etc/rc" + lvl + ".d/S*" + ServiceName))
		if len(ms) > 0 {
			return true
		}
	}
	return false
}

// parseSystemdTime reads a systemd timestamp: "@1733000000" (with
// --timestamp=unix) or the default "Sun 2026-11-29 23:52:13 UTC", which
// systemd 252 (Debian 12) prints for `show` whatever --timestamp says.
func parseSystemdTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" || s == "n/a" || s == "0" {
		return time.Time{}
	}
	if strings.HasPrefix(s, "@") {
		var sec int64
		for _, c := range s[1:] {
			if c < '0' || c > '9' {
				return time.Time{}
			}
			sec = sec*10 + int64(c-'0')
		}
		if sec <= 0 {
			return time.Time{}
		}
		return time.Unix(sec, 0)
	}
	for _, layout := range []string{"Mon 2006-01-02 15:04:05 MST", "Mon 2006-01-02 15:04:05.000000 MST"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t
		}
	}
	return time.Time{}
}
