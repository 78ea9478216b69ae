package testutil

import (
	"os"
	"strings"

	"github.com/shirou/gopsutil/v4/process"
)

// Running returns the live processes running the program exe (the same
// file, however its path is spelled), by pid; with arg set, only those
// whose command line contains arg. A process that has exited but not been
// reaped (a Unix zombie) has no executable any more and is not listed.
func Running(exe, arg string) map[int32]bool {
	want, err := os.Stat(exe)
	if err != nil {
		return nil
	}
	pids, _ := process.Pids()
	out := map[int32]bool{}
	for _, pid := range pids {
		p := &process.Process{Pid: pid}
		path, err := p.Exe()
		if err != nil {
			continue
		}
		if fi, err := os.Stat(path); err != nil || !os.SameFile(fi, want) {
			continue
		}
		if arg != "" {
			cmd, err := p.Cmdline()
			if err != nil || !strings.Contains(cmd, arg) {
				continue
			}
		}
		out[pid] = true
	}
	return out
}
