package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// setDACL replaces path's access list with the one sddl describes
// (protected: nothing inherited), and reads it back: an access list the file
// system cannot keep is no ground for a verdict (Wine keeps one only where
// the host file system stores extended attributes).
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
	got, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := aces(t, sd), aces(t, got); a != b {
		t.Skipf("the access list of %s did not stick (set %s, read back %s): this file system cannot hold one", path, a, b)
	}
}

// aces lists a descriptor's DACL entries as type/flags/mask/SID.
func aces(t *testing.T, sd *windows.SECURITY_DESCRIPTOR) string {
	t.Helper()
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return "no DACL"
	}
	var out []string
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			t.Fatal(err)
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		out = append(out, fmt.Sprintf("%d/%#x/%#x/%s", ace.Header.AceType, ace.Header.AceFlags, ace.Mask, sid))
	}
	return strings.Join(out, " ")
}

// A privileged agent refuses a config that Users, Authenticated Users or
// Everyone can change (or whose directory lets them replace it), naming the
// path, who, and the icacls command that fixes it; once only
// Administrators and SYSTEM can, it is accepted.
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
	setDACL(t, dir, "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)")

	for _, c := range []struct{ sddl, who string }{
		{"D:P" + admins + "(A;;0x1201bf;;;WD)", "Everyone"},           // FILE_GENERIC_READ|WRITE|EXECUTE
		{"D:P" + admins + "(A;;0x100116;;;BU)", "Users"},              // FILE_WRITE_DATA|APPEND|WRITE_EA|WRITE_ATTRIBUTES
		{"D:P" + admins + "(A;;0x10000;;;AU)", "Authenticated Users"}, // DELETE
	} {
		setDACL(t, cfg, c.sddl)
		err := CheckPermissions(cfg)
		if !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), c.who) ||
			!strings.Contains(err.Error(), cfg) || !strings.Contains(err.Error(), "icacls") {
			t.Errorf("%s: CheckPermissions = %v, want a refusal naming %s, the file and icacls", c.sddl, err, c.who)
		}
	}

	setDACL(t, cfg, "D:P"+admins+"(A;;0x1200a9;;;BU)") // Users may read and run it: not a writer
	if err := CheckPermissions(cfg); err != nil {
		t.Errorf("a config only Administrators and SYSTEM can change: %v", err)
	}

	setDACL(t, dir, "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;;0x100040;;;WD)") // Everyone may delete the directory's files
	if err := CheckPermissions(cfg); !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "directory of the config") {
		t.Errorf("a directory Everyone can replace the config in: CheckPermissions = %v", err)
	}
}
