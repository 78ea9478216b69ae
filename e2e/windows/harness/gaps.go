package main

import "regexp"

// Gap is a known way Wine 8 differs from Windows: an API svc-ctl (or Go's
// runtime and testing package) calls that Wine does not implement. A failure
// is tolerated only when every failure line of it matches a Gap's Line; the
// table names the gap, so a tolerated failure is never a silent pass.
type Gap struct {
	Name string // short, for the table
	API  string // the Windows API Wine lacks, and how it shows
	Line *regexp.Regexp
}

// gaps is THE list: the only failures the harness tolerates. Keep it short:
// a gap belongs here only when it is Wine's, not svc-ctl's, and names the
// missing API. docs/windows.md explains each one.
var gaps = []Gap{
	{
		Name: "removeall-posix-delete",
		API: "NtSetInformationFile(FileDispositionInformationEx, FILE_DISPOSITION_POSIX_SEMANTICS) answers " +
			"STATUS_NOT_IMPLEMENTED, which Go does not fall back from: os.RemoveAll fails with \"Invalid function\", " +
			"so every t.TempDir cleanup fails after the test body passed",
		Line: regexp.MustCompile(`^testing\.go:\d+: TempDir RemoveAll cleanup: unlinkat .*: Invalid function\.$`),
	},
	{
		Name: "scm-failure-actions-flag",
		API: "ChangeServiceConfig2W/QueryServiceConfig2W(SERVICE_CONFIG_FAILURE_ACTIONS_FLAG) answers ERROR_INVALID_LEVEL: " +
			"the SCM cannot apply recovery actions to non-crash failures (install and verify say WARN)",
		Line: regexp.MustCompile(`^WARN\b.*\(SERVICE_CONFIG_FAILURE_ACTIONS_FLAG\) not set: the service manager does not support it \(Invalid level\.\)`),
	},
	{
		Name: "tcp-owner-pid",
		API: "GetExtendedTcpTable(TCP_TABLE_OWNER_PID_LISTENER) reports dwOwningPid 0 for every socket: the process " +
			"holding a port cannot be named (proc.PortHolder says so with ErrOwnerUnknown, and a start that finds its port " +
			"taken says the holder is unnamed)",
		Line: regexp.MustCompile(`GetExtendedTcpTable names no owning process \(pid 0\)`),
	},
	{
		Name: "attach-console",
		API: "AttachConsole(pid) of another process's console answers ERROR_INVALID_HANDLE: the CTRL_BREAK helper of " +
			"stop_signal = \"SIGBREAK\" cannot reach the service's console (the sequence is tested at its seam, " +
			"TestCtrlBreakThenJobAtTimeout, which passes)",
		Line: regexp.MustCompile(`attach to the console of pid \d+: Invalid handle\.`),
	},
	{
		Name: "wine-client-noise",
		API: "a Wine process that ends during a call to the wineserver (a child a test terminated) prints \"wine client error:PID: ...\" " +
			"into the stderr it inherited, which is the test binary's output: the harness removes it before reading the " +
			"output and counts it here",
		Line: regexp.MustCompile(`wine client error:[0-9a-f]+: (?:(?:read|write|[a-z_]+): [A-Za-z ]+\n)?`),
	},
}

// gapNamed returns the gap called name; it must exist.
func gapNamed(name string) *Gap {
	for i := range gaps {
		if gaps[i].Name == name {
			return &gaps[i]
		}
	}
	panic("no gap named " + name)
}

// matchGap returns the gap line matches, or nil.
func matchGap(line string) *Gap {
	for i := range gaps {
		if gaps[i].Line.MatchString(line) {
			return &gaps[i]
		}
	}
	return nil
}
