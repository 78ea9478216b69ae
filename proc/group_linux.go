package proc

import (
	"bytes"
	"os"
	"strconv"
)

// groupHasLive reports whether a process other than a zombie is in process
// group pgid. kill(-pgid, 0) alone cannot tell: zombies keep answering it,
// and where init does not reap (some containers) they stay forever.
func groupHasLive(pgid int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return true // cannot tell: assume yes, the caller waits and forces
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return true
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		if state, pgrp, ok := readStat(name); ok && pgrp == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// readStat reads state and pgrp from /proc/PID/stat: "pid (comm) S ppid pgrp ...".
// comm may hold spaces and parentheses, so fields are counted after the last ')'.
func readStat(pid string) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(string(f[2]))
	return f[0][0], pgrp, err == nil
}
