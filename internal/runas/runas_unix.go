//go:build unix

package runas

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
)

const supported = true

// Lookup resolves a user (name or numeric uid; "" = the caller's uid) and a
// group (name or numeric gid; "" = the user's primary group). Both must
// exist in the system's databases.
func Lookup(userName, groupName string) (*Identity, error) {
	id := &Identity{UID: uint32(os.Getuid()), GID: uint32(os.Getgid())}
	if userName != "" {
		if err := fillUser(id, userName); err != nil {
			return nil, err
		}
	}
	if groupName != "" {
		gid, err := lookupGroup(groupName)
		if err != nil {
			return nil, err
		}
		id.GID = gid
		if userName == "" {
			id.Groups = []uint32{gid}
		}
	}
	return id, nil
}

func fillUser(id *Identity, name string) error {
	u, err := lookupUser(name)
	if err != nil {
		return UnknownUser(name)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("user %q has a non-numeric uid %q or gid %q", name, u.Uid, u.Gid)
	}
	id.Username, id.UID, id.GID, id.Home = u.Username, uint32(uid), uint32(gid), u.HomeDir
	gids, err := u.GroupIds()
	if err != nil {
		return fmt.Errorf("list the groups of user %q: %w", name, err)
	}
	id.Groups = id.Groups[:0]
	for _, g := range gids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil {
			id.Groups = append(id.Groups, uint32(n))
		}
	}
	return nil
}

func lookupUser(name string) (*user.User, error) {
	if _, err := strconv.ParseUint(name, 10, 32); err == nil {
		return user.LookupId(name)
	}
	return user.Lookup(name)
}

func lookupGroup(name string) (uint32, error) {
	var g *user.Group
	var err error
	if _, perr := strconv.ParseUint(name, 10, 32); perr == nil {
		g, err = user.LookupGroupId(name)
	} else {
		g, err = user.LookupGroup(name)
	}
	if err != nil {
		return 0, UnknownGroup(name)
	}
	gid, err := strconv.ParseUint(g.Gid, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("group %q has a non-numeric gid %q", name, g.Gid)
	}
	return uint32(gid), nil
}
