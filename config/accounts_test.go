package config

import (
	"testing"

	"svcctl/internal/runas"
)

// fakeAccounts sets who reads the config (perUser: a normal user's
// svc-ctl) and whether the OS supports run-as, and knows the accounts
// "nobody" and "nogroup" (and "0"/"root") on every OS, for the tests that
// are about the rules rather than about the OS's user database.
func fakeAccounts(t *testing.T, perUser, supported bool) {
	t.Helper()
	oldMode, oldSupported, oldLookup := userMode, runAsSupported, lookupRunAs
	t.Cleanup(func() { userMode, runAsSupported, lookupRunAs = oldMode, oldSupported, oldLookup })
	userMode = func() bool { return perUser }
	runAsSupported = func() bool { return supported }
	lookupRunAs = func(user, group string) (*runas.Identity, error) {
		if user != "" && user != "nobody" && user != "root" && user != "0" {
			return nil, runas.UnknownUser(user)
		}
		if group != "" && group != "nogroup" && group != "root" && group != "0" {
			return nil, runas.UnknownGroup(group)
		}
		return &runas.Identity{Username: user}, nil
	}
}
