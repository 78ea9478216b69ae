//go:build !linux && !darwin && !windows

package proc

import (
	"errors"
	"fmt"

	"github.com/shirou/gopsutil/v4/process"
)

// Elsewhere gopsutil is all there is: its create time is the start stamp.

func readProc(pid int32) (procInfo, error) {
	if pid <= 0 {
		return procInfo{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	p, err := process.NewProcess(pid)
	if err != nil {
		if errors.Is(err, process.ErrorProcessNotRunning) {
			return procInfo{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
		}
		return procInfo{}, fmt.Errorf("look up pid %d: %w", pid, err)
	}
	ct, err := p.CreateTime()
	if err != nil {
		return procInfo{}, fmt.Errorf("read create time of pid %d: %w", pid, err)
	}
	pi := procInfo{pid: pid, start: uint64(ct), createMs: ct}
	if pp, err := p.Ppid(); err == nil {
		pi.ppid = pp
	}
	if st, err := p.Status(); err == nil {
		for _, s := range st {
			pi.zombie = pi.zombie || s == process.Zombie
		}
	}
	return pi, nil
}

func listProcs() ([]procInfo, error) {
	pids, err := process.Pids()
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	out := make([]procInfo, 0, len(pids))
	for _, pid := range pids {
		if pi, err := readProc(pid); err == nil {
			out = append(out, pi)
		}
	}
	return out, nil
}

func readExe(pid int32) (string, error) { return gopsutilExe(pid) }

func currentBoot() string { return "" }

func childrenOf(int32) ([]int32, bool) { return nil, false }

func uidsOf(pid int32) (uint32, uint32, bool) {
	u, err := (&process.Process{Pid: pid}).Uids()
	if err != nil || len(u) < 2 {
		return 0, 0, false
	}
	return u[0], u[1], true
}

func environOf(pid int32) ([]byte, error) {
	env, err := (&process.Process{Pid: pid}).Environ()
	if err != nil {
		return nil, err
	}
	var b []byte
	for _, e := range env {
		b = append(append(b, e...), 0)
	}
	return b, nil
}
