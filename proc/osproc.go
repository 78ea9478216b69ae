package proc

// procInfo is what the OS says about one process. start is the OS's own
// stamp of when the process began, read without the wall clock where the OS
// allows it (see Identity.Start); createMs is the same moment as wall-clock
// milliseconds, for people only.
type procInfo struct {
	pid      int32
	ppid     int32
	session  int32 // unix session id; 0 where the OS has none (Windows)
	pgrp     int32 // unix process group id; 0 where the OS has none
	zombie   bool  // exited, not yet reaped: not alive, whatever kill(pid, 0) says
	stopped  bool  // stopped by a signal (SIGSTOP, SIGTSTP) or a tracer: alive, and answers nothing
	start    uint64
	createMs int64
}

// The per-OS files (osproc_linux.go, osproc_darwin.go, osproc_windows.go,
// osproc_notlinux_notdarwin_notwindows.go) provide:
//
//	readProc(pid int32) (procInfo, error)  // ErrGone when there is no such process
//	listProcs() ([]procInfo, error)       // every process the caller can see
//	readExe(pid int32) (string, error)    // the executable, for people
//	currentBoot() string                  // names this boot ("" where unknown)
//	childrenOf(pid int32) ([]int32, bool)  // pid's children, without listing every process; false where the OS cannot say
//	uidsOf(pid int32) (real, effective uint32, ok bool)
//	environOf(pid int32) ([]byte, error)  // the environment area as the process has it now: NUL-separated KEY=VALUE
