package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// fileDeleteChild is FILE_DELETE_CHILD (winnt.h), which x/sys does not name.
const fileDeleteChild = 0x40

// setDACL replaces path's access list with the one sddl describes
// (protected: nothing inherited).
func setDACL(t *testing.T, path, sddl string) {
	t.Helper()
	sd, err := windows.SecurityDescriptorFromString(sddl)
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	err = windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
	if err != nil {
		t.Skipf("cannot set an access list on %s here: %v", path, err)
	}
}

// grants reports whether path's access list, read back, allows sid any of
// mask. Wine keeps an access list only as the Unix mode bits it maps to
// (owner, group, others = Everyone): what it cannot say (Users, Authenticated
// Users) reads back as absent, and such a case cannot be judged there.
func grants(t *testing.T, path, sid string, mask windows.ACCESS_MASK) bool {
	t.Helper()
	want, err := windows.StringToSid(sid)
	if err != nil {
		t.Fatal(err)
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return true
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			t.Fatal(err)
		}
		got := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if ace.Header.AceType == windows.ACCESS_ALLOWED_ACE_TYPE && ace.Mask&mask != 0 && got.Equals(want) {
			return true
		}
	}
	return false
}

// A privileged agent refuses a config that Users, Authenticated Users or
// Everyone can change (or whose directory lets them replace it), naming the
// path, who, and the icacls command that fixes it; once only
// Administrators and SYSTEM can, it is accepted. Each case is judged by the
// access list the file system holds afterwards, read back: a case this file
// system cannot express is named and not judged.
func TestCheckPermissionsReadsTheAccessList(t *testing.T) {
	dir, err := os.MkdirTemp("", "svcctl-acl-") // not t.TempDir: Wine cannot remove it (docs/windows.md)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	cfg := filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(cfg, []byte("[agent]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const admins = "(A;;FA;;;SY)(A;;FA;;;BA)"
	const write = windows.FILE_WRITE_DATA | windows.FILE_APPEND_DATA | windows.DELETE
	setDACL(t, dir, "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)")
	if grants(t, dir, "S-1-1-0", fileDeleteChild) {
		t.Skipf("%s keeps granting Everyone the right to replace its files: this file system cannot hold the access list", dir)
	}

	judged := 0
	for _, c := range []struct{ sddl, sid, who string }{
		{"D:P" + admins + "(A;;0x1201bf;;;WD)", "S-1-1-0", "Everyone"},            // FILE_GENERIC_READ|WRITE|EXECUTE
		{"D:P" + admins + "(A;;0x100116;;;BU)", "S-1-5-32-545", "Users"},          // WRITE_DATA|APPEND|WRITE_EA|WRITE_ATTRIBUTES
		{"D:P" + admins + "(A;;0x10000;;;AU)", "S-1-5-11", "Authenticated Users"}, // DELETE
	} {
		setDACL(t, cfg, c.sddl)
		if !grants(t, cfg, c.sid, write) {
			t.Logf("%s: not judged: the file system did not keep %s's right to change %s", c.sddl, c.who, cfg)
			continue
		}
		judged++
		err := CheckPermissions(cfg)
		if !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), c.who) ||
			!strings.Contains(err.Error(), cfg) || !strings.Contains(err.Error(), "icacls") {
			t.Errorf("%s: CheckPermissions = %v, want a refusal naming %s, the file and icacls", c.sddl, err, c.who)
		}
	}
	if judged == 0 {
		t.Skip("no broad writer could be given to the config here: nothing to judge")
	}

	setDACL(t, cfg, "D:P"+admins+"(A;;0x1200a9;;;BU)") // Users may read and run it: not a writer
	if err := CheckPermissions(cfg); err != nil {
		t.Errorf("a config only Administrators and SYSTEM can change: %v", err)
	}

	setDACL(t, dir, "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;;0x100040;;;WD)") // Everyone may delete the directory's files
	if grants(t, dir, "S-1-1-0", fileDeleteChild) {
		if err := CheckPermissions(cfg); !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "directory of the config") {
			t.Errorf("a directory Everyone can replace the config in: CheckPermissions = %v", err)
		}
	}
}
