//go:build unix

package svcenv

import (
	"os"
	"os/user"
	"strconv"

	"svcctl/internal/runas"
)

func base(id *runas.Identity) map[string]string {
	m := map[string]string{"PATH": basePath(uidOf(id))}
	osBase(m, id)
	name, home := who(id)
	if name != "" {
		m["USER"], m["LOGNAME"] = name, name
	}
	if home != "" {
		m["HOME"] = home
	}
	return m
}

// who is the user name and home of id, or of the current user.
func who(id *runas.Identity) (name, home string) {
	if id != nil && id.Username != "" {
		return id.Username, id.Home
	}
	u, err := user.LookupId(strconv.Itoa(os.Getuid()))
	if err != nil {
		return "", ""
	}
	return u.Username, u.HomeDir
}

func uidOf(id *runas.Identity) int {
	if id != nil && id.Username != "" {
		return int(id.UID)
	}
	return os.Getuid()
}

// defaultDir is the home of the user id names (nil: the agent's own), "/"
// for root or for a user whose home does not exist (a system account's
// /nonexistent): never the caller's working directory.
func defaultDir(id *runas.Identity) string {
	if uidOf(id) == 0 {
		return "/"
	}
	_, home := who(id)
	if fi, err := os.Stat(home); home == "" || err != nil || !fi.IsDir() {
		return "/"
	}
	return home
}
