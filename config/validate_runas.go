package config

import "svcctl/internal/runas"

// RunAs is who a service (with its exec probes) or a job runs as under a
// system agent: `user` and `group` as written. The zero value is the
// agent's own user.
type RunAs struct {
	User  string // a name or numeric uid; "" = the agent's user
	Group string // a name or numeric gid; "" = the user's primary group
}

// IsZero reports whether neither user nor group is set.
func (r RunAs) IsZero() bool { return r.User == "" && r.Group == "" }

// Seams for the rules that depend on the OS and on who runs svc-ctl; tests
// swap them.
// (userMode, who reads the config, is in load.go.)
var (
	runAsSupported = runas.Supported
	lookupRunAs    = runas.Lookup
)

// runAs checks user and group of the table at p: refused on an OS where
// svc-ctl cannot start a process as another user, refused under a per-user
// svc-ctl (it cannot switch users), and each name must exist.
func (c *checker) runAs(p, user, group string) RunAs {
	r := RunAs{User: user, Group: group}
	if r.IsZero() {
		return r
	}
	key := p + ".user"
	if user == "" {
		key = p + ".group"
	}
	switch {
	case !runAsSupported():
		c.fail(key, "not supported on this OS yet (Windows): remove it; the service runs as the agent's account")
	case c.user:
		c.fail(key, "only the system agent (run as root) can run a service or job as another user; svc-ctl runs as a normal user here: remove it, or run svc-ctl as root")
	default:
		if user != "" {
			if _, err := lookupRunAs(user, ""); err != nil {
				c.fail(p+".user", "%v", err)
			}
		}
		if group != "" {
			if _, err := lookupRunAs("", group); err != nil {
				c.fail(p+".group", "%v", err)
			}
		}
	}
	return r
}

// Identity resolves r for a start, now (the user database may have changed
// since the config was loaded): nil for the zero RunAs (the agent's own
// user).
func (r RunAs) Identity() (*runas.Identity, error) {
	if r.IsZero() {
		return nil, nil
	}
	return runas.Lookup(r.User, r.Group)
}
