package proc

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// readProc opens the process for a query. The start stamp is the creation
// FILETIME (100 ns units since 1601) from GetProcessTimes: exact, fixed when
// the process was created. Windows has no zombies: an exited process whose
// handles are still open reports an exit code other than STILL_ACTIVE.
func readProc(pid int32) (procInfo, error) {
	if pid <= 0 {
		return procInfo{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
			return procInfo{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
		}
		return procInfo{}, fmt.Errorf("open pid %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	return infoOfHandle(h, pid)
}

// stillActive is STILL_ACTIVE: GetExitCodeProcess's answer for a live process.
const stillActive = 259

func infoOfHandle(h windows.Handle, pid int32) (procInfo, error) {
	var created, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exit, &kernel, &user); err != nil {
		return procInfo{}, fmt.Errorf("read times of pid %d: %w", pid, err)
	}
	pi := procInfo{pid: pid, start: filetimeStamp(created), createMs: created.Nanoseconds() / 1e6}
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err == nil && code != stillActive {
		pi.zombie = true // exited; a handle keeps its record
	}
	return pi, nil
}

func filetimeStamp(ft windows.Filetime) uint64 {
	return uint64(ft.HighDateTime)<<32 | uint64(ft.LowDateTime)
}

// listProcs walks a toolhelp snapshot (pid and parent pid), then reads each
// process's start stamp. Processes it may not open are skipped.
func listProcs() ([]procInfo, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	var out []procInfo
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		pi, rerr := readProc(int32(e.ProcessID))
		if rerr != nil {
			continue
		}
		pi.ppid = int32(e.ParentProcessID)
		out = append(out, pi)
	}
	return out, nil
}

func readExe(pid int32) (string, error) { return gopsutilExe(pid) }

func currentBoot() string { return "" }

// childrenOf, uidsOf, environOf: a Windows instance is owned by its job
// object; parent links are read from a listing, and the environment marker
// is not needed (nothing leaves a job).
func childrenOf(int32) ([]int32, bool)    { return nil, false }
func uidsOf(int32) (uint32, uint32, bool) { return 0, 0, false }
func environOf(pid int32) ([]byte, error) {
	return nil, fmt.Errorf("environment of pid %d: %w", pid, errors.ErrUnsupported)
}
