package proc

import (
	"os"
	"strconv"
	"sync"
)

// containerPIDs lists the instance's cgroup, when it has one in this boot.
func containerPIDs(inst Instance) ([]int32, string, error) {
	if inst.Cgroup == "" {
		return nil, "", nil
	}
	pids, err := cgroupProcs(inst.Cgroup)
	return pids, "cgroup", err
}

// walkable reports whether one process's children can be read without
// listing every process (/proc/PID/task/TID/children, CONFIG_PROC_CHILDREN).
var walkable = sync.OnceValue(func() bool {
	_, err := os.Stat(procRoot + "/self/task/" + strconv.Itoa(os.Getpid()) + "/children")
	return err == nil
})
