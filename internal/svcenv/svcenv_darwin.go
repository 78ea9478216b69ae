package svcenv

import (
	"os"

	"svcctl/internal/runas"
)

// launchdPath is launchd's default PATH for daemons.
const launchdPath = "/usr/bin:/bin:/usr/sbin:/sbin"

// homebrewPath is where Homebrew puts a person's programs (Apple silicon,
// then Intel).
const homebrewPath = "/opt/homebrew/bin:/opt/homebrew/sbin:/usr/local/bin"

// basePath is launchd's for a root agent. A per-user agent's starts with
// Homebrew's prefixes, where its user's programs are; a root agent's never
// does: they belong to whoever installed Homebrew, and a root service must
// not run what a user can replace.
func basePath(int) string {
	if os.Geteuid() != 0 {
		return homebrewPath + ":" + launchdPath
	}
	return launchdPath
}

func osBase(m map[string]string, id *runas.Identity) {}
