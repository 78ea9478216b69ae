//go:build unix

package svcenv

import (
	"os"
	"os/user"
	"strconv"

	"svcctl/internal/runas"
)

func base(id *runas.Identity) map[string]string {
	m := map[string]string{"PATH": defaultPath}
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
