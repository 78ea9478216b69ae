//go:build unix

package runas

import (
	"errors"
	"os"
	"os/user"
	"testing"
)

func TestLookup(t *testing.T) {
	root, err := Lookup("root", "")
	if err != nil {
		t.Fatal(err)
	}
	if root.UID != 0 || root.Username != "root" || root.Home == "" || len(root.Groups) == 0 {
		t.Errorf("Lookup(root) = %+v", root)
	}
	byID, err := Lookup("0", "")
	if err != nil || byID.Username != "root" {
		t.Errorf("Lookup(0) = %+v, %v", byID, err)
	}
	g, err := user.LookupGroupId("0")
	if err != nil {
		t.Skip("no group 0 here")
	}
	onlyGroup, err := Lookup("", g.Name)
	if err != nil || onlyGroup.GID != 0 || onlyGroup.UID != uint32(os.Getuid()) || len(onlyGroup.Groups) != 1 {
		t.Errorf("Lookup(\"\", %s) = %+v, %v", g.Name, onlyGroup, err)
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := Lookup("svcctl-no-such-user", "")
	if !errors.Is(err, ErrUnknown) || err.Error() != `unknown user "svcctl-no-such-user": create it, or name an existing user or uid` {
		t.Errorf("unknown user: %v", err)
	}
	_, err = Lookup("", "svcctl-no-such-group")
	if !errors.Is(err, ErrUnknown) || err.Error() != `unknown group "svcctl-no-such-group": create it, or name an existing group or gid` {
		t.Errorf("unknown group: %v", err)
	}
}
