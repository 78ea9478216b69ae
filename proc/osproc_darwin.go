package proc

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// sStop and sZomb are SSTOP and SZOMB from <sys/proc.h>: stopped by a
// signal; exited, waiting for its parent.
const (
	sStop = 4
	sZomb = 5
)

// readProc asks the kernel (kinfo_proc) directly. The start stamp is
// p_starttime in microseconds: recorded once when the process began and
// never recomputed, so a later clock step does not move it.
func readProc(pid int32) (procInfo, error) {
	if pid <= 0 {
		return procInfo{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", int(pid))
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return procInfo{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
		}
		return procInfo{}, fmt.Errorf("sysctl kern.proc.pid.%d: %w", pid, err)
	}
	if k.Proc.P_pid != pid {
		return procInfo{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	return fromKinfo(k), nil
}

func fromKinfo(k *unix.KinfoProc) procInfo {
	tv := k.Proc.P_starttime
	us := uint64(tv.Sec)*1e6 + uint64(tv.Usec)
	pi := procInfo{pid: k.Proc.P_pid, ppid: k.Eproc.Ppid, pgrp: k.Eproc.Pgid, zombie: k.Proc.P_stat == sZomb,
		stopped: k.Proc.P_stat == sStop, start: us, createMs: int64(us / 1000)}
	if sid, err := unix.Getsid(int(pi.pid)); err == nil {
		pi.session = int32(sid)
	}
	return pi
}

func listProcs() ([]procInfo, error) {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	out := make([]procInfo, 0, len(ks))
	for i := range ks {
		if ks[i].Proc.P_pid > 0 {
			out = append(out, fromKinfo(&ks[i]))
		}
	}
	return out, nil
}

// readExe uses proc_pidpath through gopsutil.
func readExe(pid int32) (string, error) { return gopsutilExe(pid) }

var bootSession = sync.OnceValue(func() string {
	s, err := unix.Sysctl("kern.bootsessionuuid")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(s)
})

func currentBoot() string { return bootSession() }

// childrenOf: macOS cannot list one process's children; callers list every
// process (one sysctl here).
func childrenOf(int32) ([]int32, bool) { return nil, false }

// uidsOf reads the real and effective uid from kinfo_proc.
func uidsOf(pid int32) (uint32, uint32, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", int(pid))
	if err != nil || k.Proc.P_pid != pid {
		return 0, 0, false
	}
	return k.Eproc.Pcred.P_ruid, k.Eproc.Ucred.Uid, true
}

// environOf reads the environment area through KERN_PROCARGS2: argc, the
// executable path, argv, then the environment, as the process's memory
// holds them now (see envArea).
func environOf(pid int32) ([]byte, error) {
	b, err := unix.SysctlRaw("kern.procargs2", int(pid))
	if err != nil {
		return nil, fmt.Errorf("read arguments of pid %d: %w", pid, err)
	}
	env, ok := envArea(b)
	if !ok {
		return nil, fmt.Errorf("read arguments of pid %d: unexpected layout", pid)
	}
	return env, nil
}
