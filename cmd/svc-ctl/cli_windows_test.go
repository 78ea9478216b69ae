package main

import (
	"os"
	"testing"

	"golang.org/x/sys/windows"

	"svcctl/config"
)

// homeVar is the base environment's home directory variable (the system
// block's: LocalSystem's profile).
const homeVar = "USERPROFILE"

// privileged: the config permission check applies (an elevated token).
func privileged() bool { return !config.UserMode() }

// writableByOthers gives Everyone write access to path (its access list
// replaced) and returns the fix the refusal must name.
func writableByOthers(t *testing.T, path string) string {
	t.Helper()
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;FA;;;SY)(A;;FA;;;BA)(A;;0x1201bf;;;WD)")
	if err != nil {
		t.Fatal(err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		t.Skipf("cannot set an access list on %s here: %v", path, err)
	}
	return "icacls"
}

// askToStop ends a process: a console-less child cannot be asked on
// Windows (no SIGTERM), so it is killed.
func askToStop(p *os.Process) { p.Kill() }
