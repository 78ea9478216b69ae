package proc

import (
	"os"
	"slices"
	"testing"
)

// listSession asks the kernel which processes are in the session (getsid)
// and reads only those: it must find exactly what reading every process
// finds, the leader's PID included, and nothing of another session.
func TestListSessionMatchesFullListing(t *testing.T) {
	sv := startShape(t, shapes[2], "", "testsvc") // npm -> sh -> server: three levels, none execs
	settled(t, sv.c.Instance, 3)
	leader := sv.c.Instance.PID

	all, err := listProcs()
	if err != nil {
		t.Fatal(err)
	}
	var want []int32
	for _, pi := range all {
		if pi.session == leader || pi.pid == leader {
			want = append(want, pi.pid)
		}
	}
	got, err := listSession(leader)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int32
	for _, pi := range got {
		pids = append(pids, pi.pid)
		if pi.session != leader && pi.pid != leader {
			t.Errorf("pid %d of session %d listed as a member of session %d", pi.pid, pi.session, leader)
		}
	}
	slices.Sort(want)
	slices.Sort(pids)
	if !slices.Equal(pids, want) || len(pids) != 3 || !slices.Contains(pids, sv.pid) {
		t.Fatalf("listSession(%d) = %v, reading every process finds %v (server pid %d)", leader, pids, want, sv.pid)
	}
	if own, err := listSession(int32(os.Getpid())); err != nil || slices.ContainsFunc(own, func(pi procInfo) bool { return pi.session == leader }) {
		t.Fatalf("listSession of another session = %v, %v: holds a member of %d", own, err, leader)
	}
}
